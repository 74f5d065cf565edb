"""Design-space sweeps: a spec (template, lists of option values, workloads, stacks,
assumptions, objectives) -> one evaluated row per combination -> CSV with its Pareto front.

``spec`` reads and checks a sweep spec; ``recipe`` rebuilds and evaluates one combination;
``pareto`` finds the non-dominated rows; ``results`` writes and reads the CSV; ``run`` drives
the combinations through a local process pool or a Dask cluster (``dask_backend``).
"""
