import sys

from docexec.cli import main
from docexec.run.execute import ExecutionError

try:
    status = main()
except ExecutionError as failure:  # the worker could not be started or stopped answering: one line
    print(f"docexec: {failure}", file=sys.stderr)
    status = 2
raise SystemExit(status)
