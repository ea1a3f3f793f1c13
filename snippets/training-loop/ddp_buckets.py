# docexec: figure=none
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

# a process group of one process, in this process: enough to watch DDP's
# buckets (with one process, an all-reduce leaves a gradient as it is)
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
model = DDP(nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1)))
print(model.bucket_bytes_cap / 2**20)  # 25.0 -> MiB per bucket, by default
buckets = []


def log_bucket(process_group, bucket):
    buckets.append([tuple(g.shape) for g in bucket.gradients()])
    future = torch.futures.Future()
    future.set_result(bucket.buffer())  # one process: nothing to reduce
    return future


model.register_comm_hook(None, log_bucket)
for step in range(2):
    model(torch.ones(2, 3)).sum().backward()
    print(f"step {step}: {buckets.pop()}")
    #> step 0: [(4, 3), (4,), (1, 4), (1,)]
    #> step 1: [(1,), (1, 4), (4,), (4, 3)]

with model.no_sync():  # gradients accumulate locally, no communication
    model(torch.ones(2, 3)).sum().backward()
print(len(buckets))  # 0
model(torch.ones(2, 3)).sum().backward()  # the next step outside no_sync
print(len(buckets))  # 1 -> reduces what accumulated over both steps
dist.destroy_process_group()
