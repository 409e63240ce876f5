import ezpz
rank = ezpz.setup_torch()          # returns global rank
local_rank = ezpz.get_local_rank()
world_size = ezpz.get_world_size()

model = ezpz.wrap_model(model)                   # FSDP (default)

for step, batch in enumerate(dataloader):
    batch = batch.to(ezpz.get_torch_device())
    t0 = time.perf_counter()
    loss = train_step(...)
    ezpz.synchronize()
    dt = time.perf_counter() - t0
