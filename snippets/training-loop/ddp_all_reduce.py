# docexec: figure=none
import os
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel as DDP


def train(rank, world_size, store_file, results):
    dist.init_process_group(
        "gloo", init_method=f"file://{store_file}",
        rank=rank, world_size=world_size,
    )
    torch.manual_seed(0)  # the same initial weight in every process
    model = DDP(nn.Linear(2, 1, bias=False))
    local = []

    def keep_local_then_all_reduce(process_group, bucket):
        local.append(bucket.buffer().clone())  # this process's own gradient
        return default_hooks.allreduce_hook(process_group, bucket)

    model.register_comm_hook(None, keep_local_then_all_reduce)
    x = torch.tensor([[1.0, 2.0]]) * (rank + 1)  # each process its own batch
    model(x).sum().backward()
    report = (rank, local[0].tolist(), model.module.weight.grad.tolist())
    reports = [None] * world_size
    dist.all_gather_object(reports, report)
    if rank == 0:
        results.put(reports)  # for the parent process to print
    dist.destroy_process_group()


if __name__ == "__main__":
    store = os.path.join(tempfile.mkdtemp(), "store")
    results = mp.get_context("spawn").SimpleQueue()
    mp.spawn(train, args=(2, store, results), nprocs=2)
    for rank, own, grad in results.get():
        print(f"rank {rank}: own gradient {own}, after all-reduce {grad}")
        #> rank 0: own gradient [1.0, 2.0], after all-reduce [[1.5, 3.0]]
        #> rank 1: own gradient [2.0, 4.0], after all-reduce [[1.5, 3.0]]
