"""One level of ``srmdp.solve``: the validated request (solve_request), the solution object and its file
(solution, solution_file), z(0, x0) from the first step (first_step) and the error estimate from a coarser
level (error_estimate).

May import: srmdp.runs and everything below it, srmdp.options.
"""
