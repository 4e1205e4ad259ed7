"""Refinement to a tolerance within a budget (refine): the ladder of levels (ladder), the error model and the
step it prices best (error_model, step_choice, fill_steps), pooled runs (pooled_runs), Richardson
extrapolation (richardson) and the answer's report (refine_report).

May import: srmdp.solutions and everything below it.
"""
