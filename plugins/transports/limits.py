"""The largest message a worker accepts by default: shared by ``solverkit worker --max-message``
(commands.py) and the worker itself (worker.py), so that neither imports the other."""

#: default of `solverkit worker --max-message`, MiB (above a pass to a worker of all of HULHE: 2.3 GB)
DEFAULT_MAX_MESSAGE_MB = 4096
#: the same in bytes: the largest frame a worker accepts unless told otherwise
DEFAULT_MAX_MESSAGE = DEFAULT_MAX_MESSAGE_MB << 20
