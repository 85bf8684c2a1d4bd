# Stand-in for python-constraint2, which Debian does not package: Kernel
# Tuner imports these names; the bruteforce searchspace framework never uses them.
class Constraint: pass
class FunctionConstraint(Constraint):
    def __init__(self, func=None, *a, **k): self._func = func
for _n in ["AllDifferentConstraint","AllEqualConstraint","ExactSumConstraint","InSetConstraint","MaxProdConstraint","MaxSumConstraint","MinProdConstraint","MinSumConstraint","NotInSetConstraint","SomeInSetConstraint","SomeNotInSetConstraint"]:
    globals()[_n] = type(_n, (FunctionConstraint,), {})
class Solver: pass
for _n in ["BacktrackingSolver","MinConflictsSolver","OptimizedBacktrackingSolver","RecursiveBacktrackingSolver"]:
    globals()[_n] = type(_n, (Solver,), {"__init__": lambda self, *a, **k: None})
class Problem:
    def __init__(self, *a, **k): raise RuntimeError("python-constraint2 is not installed; use the bruteforce framework")
