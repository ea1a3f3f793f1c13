import os
import re
import subprocess
import sys

BACKWARD = """
x = torch.tensor([1.0, 2.0], requires_grad=True)
(x * 3).exp().sum().backward()
sys.stderr.write("--- end of backward\\n")
"""


def run(code, torch_logs=None):
    """Run code in a fresh Python; return what it wrote to stderr."""
    env = {k: v for k, v in os.environ.items() if k != "TORCH_LOGS"}
    if torch_logs is not None:
        env["TORCH_LOGS"] = torch_logs
    done = subprocess.run([sys.executable, "-c", code], env=env,
                          capture_output=True, text=True, check=True)
    return done.stderr


def logged(stderr):
    """For each backward pass, the Nodes the log names, with grad shapes."""
    # a line: "... Executing: <Node object at 0x...> with grad_outputs: [...]"
    pattern = r"Executing: <(\w+) .*grad_outputs: (\S+)"
    return [[" ".join(found) for found in re.findall(pattern, part)]
            for part in stderr.split("--- end of backward")[:-1]]


# Set before Python starts, so before import torch. + means DEBUG level.
stderr = run("import sys, torch" + BACKWARD, torch_logs="+autograd")
for line in logged(stderr)[0]:
    print(line)  # -> one line per Node, in the order backward runs them
    #> SumBackward0 [f32[]]
    #> ExpBackward0 [f32[2]]
    #> MulBackward0 [f32[2]]
    #> AccumulateGrad [f32[2]]

stderr = run(
    "import logging, os, sys, torch\n"
    "os.environ['TORCH_LOGS'] = '+autograd'"  # 1: set after import torch
    + BACKWARD
    + "torch._logging.set_logs(autograd=logging.DEBUG)"  # 2: while it is set
    + BACKWARD
    + "del os.environ['TORCH_LOGS']\n"  # 3: set_logs without the variable
    "torch._logging.set_logs(autograd=logging.DEBUG)"
    + BACKWARD
)
print([len(lines) for lines in logged(stderr)])  # [0, 0, 4]
print(re.search(r"Using TORCH_LOGS.*", stderr)[0])  # -> what the 2nd call said
#> Using TORCH_LOGS environment variable for log settings, ignoring call to...
