import logging

import torch
from torch._dynamo.guards import recompiles_log

torch._dynamo.reset()  # forget earlier compiles: frames are numbered from 0
torch._logging.set_logs(recompiles=True)  # log every recompilation and why
log_lines = []


class KeepLines(logging.Handler):  # keeps the lines instead of writing them
    def emit(self, record):
        for line in record.getMessage().splitlines():
            log_lines.append(line.split(" in ")[0].strip())  # no file path


recompiles_log.propagate = False  # off stderr, where lines carry a time
recompiles_log.addHandler(KeepLines())


def new_lines():
    lines = "\n".join(log_lines)
    log_lines.clear()
    return lines or "(no recompilation)"


@torch.compile(backend="aot_eager")
def f(x):
    return x.sin() * 2


x = torch.tensor([0.5, 1.0])
f(x)  # first call: compiled for an x that does not require grad
print(new_lines())  # (no recompilation)

x.requires_grad_()
f(x)
print(new_lines())
#> Recompiling function f
#> triggered by the following guard failure(s):
#> - 0/0: tensor 'x' requires_grad mismatch. expected requires_grad=0

with torch.no_grad():
    f(x)
print(new_lines())
#> Recompiling function f
#> triggered by the following guard failure(s):
#> - 0/1: GLOBAL_STATE changed: grad_mode
#> - 0/0: GLOBAL_STATE changed: grad_mode

f(x)  # grad mode on, x requires grad: the second graph fits again
print(new_lines())  # (no recompilation)

# f has 3 versions; at recompile_limit versions, Dynamo compiles no more
torch._dynamo.config.recompile_limit = 3
limit_log = logging.getLogger("torch._dynamo.convert_frame")
limit_log.propagate = False  # its warning, kept instead of written
limit_log.addHandler(KeepLines())
# a call that fits no version runs in eager mode: one Node per operation
print(f(x.double()).grad_fn.name())  # MulBackward0
print(*[line for line in new_lines().splitlines() if "hit" in line])
#> torch._dynamo hit config.recompile_limit (3)
print(f(x).grad_fn.name())  # CompiledFunctionBackward -> version 0/1 runs
