# docexec: figure=none
import subprocess
import sys
import tempfile
from pathlib import Path

# The program each process runs, as torchrun starts it: torchrun gives every
# copy its RANK and WORLD_SIZE, and an address to meet the others at.
WORKER = """
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")  # RANK, WORLD_SIZE, ... from torchrun
rank = dist.get_rank()
torch.manual_seed(0)  # the same initial weight in every process
model = DDP(nn.Linear(2, 1, bias=False))
own = []

def keep_own_then_all_reduce(process_group, bucket):
    own.append(bucket.buffer().clone())  # this process's own gradient
    return default_hooks.allreduce_hook(process_group, bucket)

model.register_comm_hook(None, keep_own_then_all_reduce)
x = torch.tensor([[1.0, 2.0]]) * (rank + 1)  # each process its own batch
model(x).sum().backward()
grad = model.module.weight.grad.tolist()
report = f"rank {rank}: own gradient {own[0].tolist()}, after all-reduce {grad}"
reports = [None, None]
dist.all_gather_object(reports, report)
if rank == 0:  # one process prints, in rank order
    for line in reports:
        print(line)
dist.destroy_process_group()
"""

worker = Path(tempfile.mkdtemp()) / "worker.py"
worker.write_text(WORKER)
run = subprocess.run(
    [sys.executable, "-m", "torch.distributed.run",  # the torchrun command
     "--standalone", "--nproc-per-node=2", str(worker)],
    capture_output=True, text=True,
)
# what rank 0 printed (or, had the run failed, its error)
print(run.stdout or run.stderr, end="")
#> rank 0: own gradient [1.0, 2.0], after all-reduce [[1.5, 3.0]]
#> rank 1: own gradient [2.0, 4.0], after all-reduce [[1.5, 3.0]]
