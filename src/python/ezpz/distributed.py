"""The training API of the Python ezpz (saforem2/ezpz's ``ezpz.distributed``) over ezpz's C++ rules:
ranks, nodes, devices, the process group, collectives, model wrappers, seeding and diagnostics.

Rank, local rank, world size, node index, node count, devices per node, device, backend, system, job
id and the allocation's hosts come from one call of the C++ ``rank_setup`` (``ezpz api``: the code
behind ``ezpz exec``), made on first use and kept for the process, so a script behaves the same under
``ezpz launch``, plain ``mpiexec`` (MPICH, Open MPI, PALS), ``srun`` and ``torchrun``. Nothing here
re-derives them. ``import ezpz.distributed`` imports only ``os`` and that door; torch, numpy and
logging are imported by the functions that use them.

    rank = ezpz.setup_torch()              # joins the process group, returns the global rank
    model = ezpz.wrap_model(model)         # FSDP2 / FSDP / DDP, as this torch offers
    ezpz.barrier(); ezpz.cleanup()
"""

import os as _os

from . import _api

__all__ = [
    # rank / topology
    "get_rank", "get_local_rank", "get_world_size", "get_world_size_total", "get_world_size_in_use",
    "get_num_nodes", "get_gpus_per_node", "get_cpus_per_node", "get_node_index", "get_device_properties",
    # device / backend
    "get_torch_device", "get_torch_device_type", "get_torch_backend", "TORCH_DTYPES_MAP",
    # lifecycle
    "setup_torch", "cleanup",
    # collectives
    "synchronize", "barrier", "broadcast", "all_reduce",
    # model wrapping
    "wrap_model", "wrap_model_for_ddp", "wrap_model_for_fsdp", "wrap_model_for_fsdp2", "init_device_mesh_safe",
    "flatten_device_mesh_safe", "FSDP_SHARDING_STRATEGIES", "resolve_fsdp_strategy",
    # diagnostics
    "get_dist_info", "get_hostname", "get_machine", "query_environment", "print_dist_setup", "seed_everything",
    "log_dict_as_bulleted_list", "timeitlogit",
    # trackers (ezpz.tracker)
    "setup_wandb", "setup_mlflow", "verify_wandb",
    # host files
    "get_nodes_from_hostfile", "get_hostfile_with_fallback", "write_hostfile_from_list_of_hosts",
]

# The device types a script may name (TORCH_DEVICE, device_type=): torch's names, as the Python ezpz.
_SUPPORTED_DEVICE_TYPES = ("cpu", "cuda", "xpu", "mps")

TORCH_DTYPES_MAP = dict.fromkeys(("bf16", "bfloat16", "fp16", "float16", "half", "fp32", "float32"))
"""Short dtype names → torch.dtype; the values are filled in on first use (None until then)."""

_SETUP = None


def _setup():
    """This rank's setup, asked of the C++ runtime once (the environment of a rank does not change under it)."""
    global _SETUP
    if _SETUP is None:
        _SETUP = _api.call("rank_setup", env=dict(_os.environ))
    return _SETUP


def _logger():
    import logging

    logger = logging.getLogger(__name__)
    if logger.level == logging.NOTSET:
        logger.setLevel(_os.environ.get("EZPZ_LOG_LEVEL", "INFO").upper())
    return logger


def _dtypes():
    if TORCH_DTYPES_MAP["bf16"] is None:
        import torch

        TORCH_DTYPES_MAP.update(bf16=torch.bfloat16, bfloat16=torch.bfloat16, fp16=torch.float16,
                                float16=torch.float16, half=torch.float16, fp32=torch.float32, float32=torch.float32)
    return TORCH_DTYPES_MAP


def _torch_version():
    import torch

    return torch.__version__


# ===================================================================
# Rank / topology: the C++ answer
# ===================================================================


def get_rank():
    """The global rank of this process (0 for a lone process)."""
    return _setup()["rank"]


def get_local_rank():
    """The rank of this process on its node."""
    return _setup()["local_rank"]


def get_world_size(*, total=False, in_use=False):
    """How many ranks the job has. ``total=True``: the devices of the job's nodes
    (get_world_size_total()); ``in_use=True``: the ranks in use (get_world_size_in_use())."""
    if total:
        return get_world_size_total()
    if in_use:
        return get_world_size_in_use()
    return _setup()["world_size"]


def get_world_size_in_use():
    """The ranks this job runs (the launcher's count; the Python ezpz asks MPI's COMM_WORLD)."""
    return _setup()["world_size"]


def get_world_size_total():
    """The devices available to the job: nodes × accelerators per node, or the ranks when the ranks
    use the CPU (each rank then is one "device", as in the Python ezpz)."""
    setup = _setup()
    if setup["gpus_per_node"] > 0:
        return setup["gpus_per_node"] * setup["nodes"]
    return setup["world_size"]


def get_num_nodes(hostfile=None):
    """The nodes the job's ranks span; with ``hostfile``, the distinct hosts that file lists (read by
    the C++ host-file rules)."""
    if hostfile is not None:
        return len(get_nodes_from_hostfile(hostfile))
    return _setup()["nodes"]


def get_gpus_per_node():
    """The accelerators of this rank's device type on this node (the system profile's count, else those
    found: device nodes, visibility variables); 0 when the ranks use the CPU."""
    return _setup()["gpus_per_node"]


def get_cpus_per_node():
    """The CPUs this node has (os.cpu_count())."""
    return _os.cpu_count() or 1


def get_node_index():
    """The index of this rank's node in the job (0 … get_num_nodes() - 1)."""
    return _setup()["node_rank"]


# ===================================================================
# Device / backend
# ===================================================================


def _torch_device_variable():
    """TORCH_DEVICE lower-cased when it names a device type torch has, else None (with a warning)."""
    value = _os.environ.get("TORCH_DEVICE", "").strip().lower()
    if not value:
        return None
    if value.split(":", 1)[0] in _SUPPORTED_DEVICE_TYPES:
        return value
    _logger().warning("Ignoring unsupported TORCH_DEVICE=%s; expected one of %s", value,
                      list(_SUPPORTED_DEVICE_TYPES))
    return None


def get_torch_device_type(device_type=None):
    """The device type: ``device_type`` when given (checked), else the type TORCH_DEVICE names, else the
    type of the device ezpz's runtime chose for this rank ("cuda" for NVIDIA and AMD GPUs, "xpu", "cpu").
    "mps" only when named. Raises ValueError for a type torch does not have."""
    if device_type is not None:
        if device_type not in _SUPPORTED_DEVICE_TYPES:
            raise ValueError(f"Unsupported device_type={device_type!r}; expected one of "
                             f"{sorted(_SUPPORTED_DEVICE_TYPES)}")
        return device_type
    named = _torch_device_variable()
    if named is not None:
        return named.split(":", 1)[0]
    return _setup()["device"].split(":", 1)[0]


def get_torch_device(*, device_type=None, as_torch_device=None):
    """This rank's device: TORCH_DEVICE as written (lower-cased: "cuda:0", "cpu") when it names a type
    torch has, else the device type (``device_type`` or get_torch_device_type()), which torch maps to
    the current device setup_torch() set. ``as_torch_device=True``: a torch.device."""
    device = _torch_device_variable() or get_torch_device_type(device_type)
    if as_torch_device:
        import torch

        return torch.device(device)
    return device


def get_torch_backend():
    """The torch.distributed backend: TORCH_BACKEND when set, else the runtime's choice for this rank's
    device: EZPZ_TORCH_BACKEND, else nccl (CUDA, ROCm), xccl (XPU), gloo (CPU)."""
    return _os.environ.get("TORCH_BACKEND") or _setup()["backend"]


def get_device_properties(device=None):
    """{"name", "total_memory"} of this rank's accelerator (index ``device``, default the current one);
    {"name": "cpu", "total_memory": -1} on the CPU."""
    device_type = get_torch_device_type()
    if device_type in ("cuda", "xpu"):
        import torch

        module = getattr(torch, device_type)
        index = device if device is not None else module.current_device()
        props = module.get_device_properties(index)
        return {"name": props.name, "total_memory": getattr(props, "total_memory", -1)}
    return {"name": device_type, "total_memory": -1}


# ===================================================================
# Lifecycle
# ===================================================================


def _device_module(torch, device_type):
    """torch.cuda / torch.xpu / torch.mps for an accelerator this torch can use, else None."""
    module = getattr(torch, device_type, None) if device_type != "cpu" else None
    if device_type == "mps":
        backend = getattr(getattr(torch, "backends", None), "mps", None)
        return module if backend is not None and backend.is_available() else None
    return module if module is not None and module.is_available() else None


def _configure_rank_warnings(rank):
    """Python warnings only from rank 0 (EZPZ_WARN_FROM_ALL_RANKS=1 keeps them everywhere), as the
    Python ezpz does: N identical copies of a library's warning help nobody."""
    import logging
    import warnings

    logging.captureWarnings(True)
    every = _os.environ.get("WARN_FROM_ALL_RANKS", _os.environ.get("EZPZ_WARN_FROM_ALL_RANKS", ""))
    if every.lower() not in ("1", "true", "yes", "on") and rank != 0:
        warnings.filterwarnings("ignore")


def setup_torch(port=None, seed=None, timeout=None, verbose=False, *, tensor_parallel_size=1,
                pipeline_parallel_size=1, context_parallel_size=1, tensor_parallel_backend=None,
                pipeline_parallel_backend=None, context_parallel_backend=None, data_parallel_backend=None,
                device_id=None, backend=None):
    """Sets this rank's device, joins the process group and returns the global rank.

    ``port`` replaces MASTER_PORT; ``timeout`` (seconds; default $TORCH_DDP_TIMEOUT, else 3600) bounds
    the rendezvous and every collective; ``seed`` calls seed_everything(seed * (rank + 1) *
    (local_rank + 1)); ``device_id`` (an index, or a torch.device) replaces this rank's device (an index is ignored on the CPU);
    ``backend`` replaces the backend. ``tensor_parallel_size``, ``pipeline_parallel_size`` and
    ``context_parallel_size`` above 1 build the groups of ezpz.tp (their ``*_backend`` for each). A job
    of one rank gets a process group in memory, without a rendezvous.
    """
    setup = _setup()
    users_device = _os.environ.get("TORCH_DEVICE")
    for name, value in setup["exports"]:
        if name in ("TORCH_DEVICE", "TORCH_BACKEND") and _os.environ.get(name):
            continue  # the user's choice, which get_torch_device() and get_torch_backend() report too
        _os.environ[name] = value
    if port is not None:
        _os.environ["MASTER_PORT"] = str(port)
    timeout_s = int(timeout) if timeout is not None else int(_os.environ.get("TORCH_DDP_TIMEOUT") or 3600)
    if timeout_s <= 0:
        raise ValueError(f"ezpz.setup_torch: timeout={timeout!r}; expected a positive number of seconds")
    backend = backend or get_torch_backend()
    import datetime
    import inspect

    import torch
    import torch.distributed as dist

    device = get_torch_device(as_torch_device=True)
    if device_id is not None and (isinstance(device_id, torch.device) or device.type != "cpu"):
        device = device_id if isinstance(device_id, torch.device) else torch.device(device.type, int(device_id))
        if not users_device:
            _os.environ["TORCH_DEVICE"] = str(device)  # what get_torch_device() reports from now on
    # The device is set before the process group: xccl on XPU, and nccl's first communicator, use it.
    if device.type in ("cuda", "xpu"):
        module = _device_module(torch, device.type)
        if module is None:
            raise RuntimeError(f"ezpz: this rank's device is {device}, but this torch ({torch.__version__}) "
                               f"cannot use {device.type} devices; install a torch built for them, or set "
                               "EZPZ_TORCH_DEVICE=cpu")
        module.set_device(device)
    rank, world_size, local_rank = setup["rank"], setup["world_size"], setup["local_rank"]
    if not dist.is_initialized():
        options = {"backend": backend, "timeout": datetime.timedelta(seconds=timeout_s)}
        if (device.type in ("cuda", "xpu") and "," not in backend
                and "device_id" in inspect.signature(dist.init_process_group).parameters):
            options["device_id"] = device
        if world_size == 1:
            dist.init_process_group(store=dist.HashStore(), rank=0, world_size=1, **options)
        else:
            dist.init_process_group(init_method="env://", rank=rank, world_size=world_size, **options)
    if max(tensor_parallel_size, pipeline_parallel_size, context_parallel_size) > 1:
        from . import tp

        tp.initialize_tensor_parallel(
            tensor_parallel_size=tensor_parallel_size, pipeline_parallel_size=pipeline_parallel_size,
            context_parallel_size=context_parallel_size, tensor_parallel_backend=tensor_parallel_backend,
            pipeline_parallel_backend=pipeline_parallel_backend, context_parallel_backend=context_parallel_backend,
            data_parallel_backend=data_parallel_backend, timeout=datetime.timedelta(seconds=timeout_s))
    logger = _logger()
    if seed is not None:
        if rank == 0:
            logger.warning("Manually specifying seed=%d", seed)
        seed_everything(int(seed) * (rank + 1) * (local_rank + 1))
    if rank == 0:
        get_dist_info(verbose=verbose)
        logger.info("Using device=%s with backend=%s for distributed training.", device.type, backend)
        if verbose:
            for note in setup["notes"]:
                print(f"ezpz: {note}", flush=True)
    if local_rank == 0 or _os.environ.get("EZPZ_LOG_ALL_RANKS") == "1":
        logger.info(print_dist_setup(display=False))
    if world_size > 1:
        dist.barrier()
    _configure_rank_warnings(rank)
    return rank


def cleanup():
    """Destroys the process group if there is one; never fails a finished run (nothing happens when
    torch cannot be imported)."""
    try:
        import torch.distributed as dist
    except Exception:  # noqa: BLE001 - nothing to tear down without torch
        return
    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()


# ===================================================================
# Collectives / synchronisation
# ===================================================================


def synchronize(device=None):
    """Waits for all work queued on this rank's accelerator (torch.cuda/xpu/mps.synchronize); nothing on
    the CPU. The device type is get_torch_device_type()'s, not whichever accelerator torch finds."""
    device_type = get_torch_device_type()
    if device_type == "cpu":
        return
    import torch

    module = _device_module(torch, device_type)
    if module is None:
        return
    if device_type == "mps":
        module.synchronize()
    else:
        module.synchronize(device)


def _initialized_group(what):
    """torch.distributed when the process group exists; None for a lone process without one; an error
    for a job of several ranks that has not called setup_torch() yet."""
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        return dist
    if get_world_size() == 1:
        return None
    raise RuntimeError(f"ezpz.{what}: the process group of this job's {get_world_size()} ranks does not exist; "
                       "call ezpz.setup_torch() first")


def _mpi_comm():
    from mpi4py import MPI

    return MPI.COMM_WORLD


def barrier(group=None, implementation=None):
    """Waits for every rank: torch.distributed.barrier (``group`` when given); ``implementation="mpi"``
    uses mpi4py instead. A lone process without a process group returns at once."""
    if implementation is not None and implementation.lower() not in ("mpi", "torch"):
        raise ValueError(f"Unsupported barrier implementation: {implementation}")
    if implementation is not None and implementation.lower() == "mpi":
        _mpi_comm().barrier()
        return
    dist = _initialized_group("barrier")
    if dist is not None:
        dist.barrier(**({"group": group} if group is not None else {}))


def broadcast(obj, root=0):
    """``obj`` (any picklable value) as rank ``root`` has it, on every rank."""
    dist = _initialized_group("broadcast")
    if dist is None:
        return obj
    payload = [obj]
    dist.broadcast_object_list(payload, src=root)
    return payload[0]


_REDUCE_OPS = {"sum": "SUM", "product": "PRODUCT", "prod": "PRODUCT", "min": "MIN", "max": "MAX",
               "avg": "AVG", "mean": "AVG"}


def all_reduce(obj, op=None, implementation=None):
    """``obj`` (a number, a list of numbers or a tensor) reduced over every rank with ``op`` (a
    torch.distributed.ReduceOp or "sum", "max", "min", "product", "avg"; default sum); a number for a
    number, a list for a list, a tensor for a tensor. ``implementation="mpi"`` uses mpi4py's allreduce
    (``op`` an MPI op)."""
    impl = (implementation or "torch").lower()
    if impl == "mpi":
        from mpi4py import MPI

        return _mpi_comm().allreduce(obj, op=MPI.SUM if op is None else op)
    if impl not in ("torch", "pytorch", "pt"):
        raise ValueError(f"Unsupported all_reduce implementation: {implementation}")
    import torch

    dist = _initialized_group("all_reduce")
    is_tensor = isinstance(obj, torch.Tensor)
    tensor = obj.detach().clone() if is_tensor else torch.tensor(obj)
    if dist is None:
        return obj
    if isinstance(op, str):
        if op.lower() not in _REDUCE_OPS:
            raise ValueError(f"Unsupported all_reduce op {op!r}; expected one of {sorted(_REDUCE_OPS)}")
        op = getattr(dist.ReduceOp, _REDUCE_OPS[op.lower()])
    on_device = tensor
    if get_torch_backend() in ("nccl", "xccl", "ccl") and tensor.device.type == "cpu":
        on_device = tensor.to(get_torch_device(as_torch_device=True))
    dist.all_reduce(on_device, op=dist.ReduceOp.SUM if op is None else op)
    if is_tensor:
        return on_device.to(obj.device)
    result = on_device.cpu()
    return result.item() if result.dim() == 0 else result.tolist()


# ===================================================================
# Model wrapping
# ===================================================================

FSDP_SHARDING_STRATEGIES = {"full-shard": True, "shard-grad-op": False, "no-shard": None, "hybrid-shard": "hybrid"}
"""Sharding strategy names (the Python ezpz's --fsdp-sharding-strategy) → reshard_after_forward."""


def resolve_fsdp_strategy(strategy):
    """reshard_after_forward for a strategy name: True, False, the devices per node (hybrid), or None
    (no-shard: use DDP)."""
    if strategy not in FSDP_SHARDING_STRATEGIES:
        raise ValueError(f"Unknown FSDP sharding strategy {strategy!r}. Choose from: "
                         f"{', '.join(FSDP_SHARDING_STRATEGIES)}")
    value = FSDP_SHARDING_STRATEGIES[strategy]
    return get_gpus_per_node() if value == "hybrid" else value


def _fsdp(what):
    """torch.distributed.fsdp, or RuntimeError naming ``what``, the torch version and why it cannot be
    imported (Debian's torch 1.13 on Python 3.11 fails inside it: a dataclass with a mutable default)."""
    try:
        import torch.distributed.fsdp as fsdp
    except Exception as error:  # noqa: BLE001 - ImportError, or a torch that breaks on this Python
        raise RuntimeError(f"ezpz.{what}: this torch ({_torch_version()}) cannot import torch.distributed.fsdp "
                           f"({type(error).__name__}: {error}); use ezpz.wrap_model(model, use_fsdp=False) (DDP)"
                           ) from None
    return fsdp


def _fully_shard():
    """(fully_shard, MixedPrecisionPolicy) of this torch (FSDP2: torch 2.4 or newer), or None."""
    for module_name in ("torch.distributed.fsdp", "torch.distributed._composable.fsdp"):
        try:
            module = __import__(module_name, fromlist=["fully_shard", "MixedPrecisionPolicy"])
        except Exception:  # noqa: BLE001 - not there, or broken on this Python (see _fsdp)
            continue
        if hasattr(module, "fully_shard") and hasattr(module, "MixedPrecisionPolicy"):
            return module.fully_shard, module.MixedPrecisionPolicy
    return None


def wrap_model(model, use_fsdp=True, dtype="bfloat16", device_mesh=None, reshard_after_forward=True,
               device_id=None):
    """``model`` wrapped for data-parallel training: FSDP when ``use_fsdp`` (FSDP2's fully_shard where
    this torch has it, else FSDP with the sharding strategy ``reshard_after_forward`` names), DDP
    otherwise and on the CPU or MPS (FSDP needs an accelerator); unchanged for a world of one rank.

    ``dtype``: FSDP's mixed-precision parameter dtype ("bfloat16", "bf16", "float16", "fp32" …);
    ``reshard_after_forward``: True (FULL_SHARD), False (SHARD_GRAD_OP), an int (HYBRID_SHARD within
    that many ranks); ``device_mesh``: FSDP2's mesh (default a 1-D mesh over every rank);
    ``device_id``: FSDP's device (torch without FSDP2 only).
    """
    logger = _logger()
    world_size = get_world_size()
    if world_size <= 1:
        logger.warning("%s requested but world_size=%d; returning unwrapped model.", "FSDP" if use_fsdp else "DDP",
                       world_size)
        return model
    if get_rank() == 0:
        logger.info("Wrapping model with %s", "fsdp" if use_fsdp else "ddp")
    if not use_fsdp:
        return wrap_model_for_ddp(model)
    device_type = get_torch_device_type()
    if device_type in ("cpu", "mps"):
        logger.warning("FSDP is not supported on %s devices; falling back to DDP.", device_type)
        return wrap_model_for_ddp(model)
    if _fully_shard() is None:
        if device_mesh is not None:
            raise RuntimeError(f"ezpz.wrap_model: device_mesh needs FSDP2 (fully_shard, torch 2.4 or newer); "
                               f"this torch is {_torch_version()}")
        return wrap_model_for_fsdp(model, dtype=dtype, device_id=device_id,
                                   sharding_strategy=_sharding_strategy(reshard_after_forward))
    if device_mesh is None:
        device_mesh = init_device_mesh_safe(device_type, (world_size,))
    return wrap_model_for_fsdp2(model, dtype=dtype, device_mesh=device_mesh,
                                reshard_after_forward=reshard_after_forward)


def _sharding_strategy(reshard_after_forward):
    """FSDP's ShardingStrategy for a reshard_after_forward value (True, False or a group size)."""
    ShardingStrategy = _fsdp("wrap_model").ShardingStrategy  # noqa: N806 - torch's class

    if isinstance(reshard_after_forward, bool):
        return ShardingStrategy.FULL_SHARD if reshard_after_forward else ShardingStrategy.SHARD_GRAD_OP
    if not hasattr(ShardingStrategy, "HYBRID_SHARD"):
        raise RuntimeError(f"ezpz.wrap_model: reshard_after_forward={reshard_after_forward} (hybrid sharding) needs "
                           f"FSDP's HYBRID_SHARD (torch 2.0 or newer); this torch is {_torch_version()}")
    return ShardingStrategy.HYBRID_SHARD


def wrap_model_for_ddp(model):
    """``model`` in DistributedDataParallel; on a CUDA or XPU device with this rank's current device as
    its device_ids."""
    import torch
    from torch.nn.parallel import DistributedDataParallel

    device_type = get_torch_device_type()
    module = _device_module(torch, device_type) if device_type in ("cuda", "xpu") else None
    if module is not None:
        return DistributedDataParallel(model, device_ids=[module.current_device()])
    return DistributedDataParallel(model)


def wrap_model_for_fsdp(model, dtype="bfloat16", device_id=None, **kwargs):
    """``model`` in FullyShardedDataParallel (FSDP1) with mixed precision: parameters in ``dtype``,
    reductions in float32; ``kwargs`` go to FSDP. Raises RuntimeError naming the torch version where
    torch.distributed.fsdp cannot be imported."""
    import torch

    fsdp = _fsdp("wrap_model_for_fsdp")
    FullyShardedDataParallel, MixedPrecision = fsdp.FullyShardedDataParallel, fsdp.MixedPrecision  # noqa: N806
    dtypes = _dtypes()
    if dtype not in dtypes:
        raise ValueError(f"Unknown dtype {dtype!r}; expected one of {sorted(dtypes)}")
    if get_rank() == 0:
        _logger().info("Wrapping model with FSDP + %s", dtype)
    precision = {"param_dtype": dtypes[dtype], "reduce_dtype": torch.float32}
    if "cast_forward_inputs" in getattr(MixedPrecision, "__dataclass_fields__", {}):
        precision["cast_forward_inputs"] = True
    if device_id is None and get_torch_device_type() in ("cuda", "xpu"):
        device_id = getattr(torch, get_torch_device_type()).current_device()
    return FullyShardedDataParallel(model, device_id=device_id, mixed_precision=MixedPrecision(**precision), **kwargs)


def wrap_model_for_fsdp2(model, dtype="bfloat16", device_mesh=None, **kwargs):
    """fully_shard (FSDP2) applied to every child of ``model`` that is not a ModuleList/ModuleDict and
    to ``model``, with parameters in ``dtype`` and reductions in float32; ``kwargs`` go to fully_shard.
    Raises RuntimeError naming the torch version where this torch has no fully_shard."""
    found = _fully_shard()
    if found is None:
        raise RuntimeError(f"ezpz.wrap_model_for_fsdp2: this torch ({_torch_version()}) has no fully_shard "
                           "(FSDP2, torch 2.4 or newer); use ezpz.wrap_model_for_fsdp (FSDP) or wrap_model_for_ddp")
    fully_shard, precision_policy = found
    import torch

    dtypes = _dtypes()
    if get_rank() == 0:
        _logger().info("Wrapping model with FSDP2 + %s", dtype)
    options = {"mp_policy": precision_policy(param_dtype=dtypes[dtype], reduce_dtype=torch.float32), **kwargs}
    for child in model.children():
        if not isinstance(child, (torch.nn.ModuleList, torch.nn.ModuleDict)):
            fully_shard(child, mesh=device_mesh, **options)
    return fully_shard(model, mesh=device_mesh, **options)


class _UnboundDefaultGroup:
    """While active on XPU: the default group's bound device cleared, so that torch builds a mesh's
    groups with new_group rather than split_group, which xccl cannot do; restored afterwards."""

    def __init__(self, device_type):
        self.device_type, self.group, self.saved = device_type, None, None

    def __enter__(self):
        import torch.distributed as dist

        if self.device_type == "xpu" and dist.is_initialized():
            try:
                group = dist.distributed_c10d._get_default_group()
                if getattr(group, "bound_device_id", None) is not None:
                    self.group, self.saved = group, group.bound_device_id
                    group.bound_device_id = None
            except (AttributeError, RuntimeError):
                self.group = None
        return self

    def __exit__(self, *exc):
        if self.group is not None:
            self.group.bound_device_id = self.saved
        return False


def init_device_mesh_safe(device_type, mesh_shape, *, mesh_dim_names=None):
    """torch.distributed.device_mesh.init_device_mesh, also on XPU (whose xccl cannot split groups).
    Raises RuntimeError naming the torch version where this torch has no device mesh (before 2.2)."""
    try:
        from torch.distributed.device_mesh import init_device_mesh
    except ImportError:
        raise RuntimeError(f"ezpz.init_device_mesh_safe: this torch ({_torch_version()}) has no "
                           "torch.distributed.device_mesh (torch 2.2 or newer)") from None
    with _UnboundDefaultGroup(device_type):
        return init_device_mesh(device_type, tuple(mesh_shape), mesh_dim_names=mesh_dim_names)


def flatten_device_mesh_safe(submesh, mesh_dim_name, *, device_type=None):
    """``submesh._flatten(mesh_dim_name)``, also on XPU (see init_device_mesh_safe)."""
    device_type = device_type or getattr(submesh, "device_type", None) or get_torch_device_type()
    with _UnboundDefaultGroup(device_type):
        return submesh._flatten(mesh_dim_name)


# ===================================================================
# Diagnostics
# ===================================================================


def get_hostname():
    """This node's name, lower-cased (the kernel's; no DNS lookup)."""
    return _os.uname().nodename.strip().lower() or "localhost"


def get_machine(hostname=None):
    """The machine: the named system ezpz's profile detection found ("Aurora", "Polaris", "Frontier" …,
    the profile name capitalised), else, on a machine no named profile claims, its host name. With
    ``hostname``, the machine that name alone is detected as."""
    setup = _setup() if hostname is None else _api.call("rank_setup", env={}, hostname=hostname)
    if setup["generic_system"]:
        return hostname if hostname is not None else get_hostname()
    return setup["system"][:1].upper() + setup["system"][1:]


def get_dist_info(verbose=None, hostfile=None):
    """A dict describing this rank's place (the Python ezpz's keys: DEVICE, DEVICE_ID,
    DISTRIBUTED_BACKEND, GPUS_PER_NODE, HOSTS, HOSTFILE, HOSTNAME, LOCAL_RANK, MACHINE, NUM_NODES, NGPUS,
    NGPUS_AVAILABLE, NODE_ID, RANK, SCHEDULER, WORLD_SIZE_TOTAL, WORLD_SIZE_IN_USE, world_size,
    EZPZ_RUN_COMMAND …); ``verbose=True`` also logs it as JSON."""
    import sys

    from .launch import get_scheduler

    setup = _setup()
    hosts = get_nodes_from_hostfile(hostfile) if hostfile is not None else (setup["hosts"] or [get_hostname()])
    hostfile_path = _os.fspath(hostfile) if hostfile is not None else next(
        (_os.environ[name] for name in ("EZPZ_HOSTFILE", "PBS_NODEFILE", "HOSTFILE") if _os.environ.get(name)), "")
    device = get_torch_device()
    info = {
        "DEVICE": device,
        "DEVICE_ID": device if ":" in device else f"{device}:{setup['device'].partition(':')[2] or 0}",
        "DISTRIBUTED_BACKEND": get_torch_backend(),
        "TORCHCOMMS": False,
        "GPUS_PER_NODE": get_gpus_per_node(),
        "HOSTS": str(hosts),
        "HOSTFILE": hostfile_path,
        "HOSTNAME": get_hostname(),
        "LOCAL_RANK": get_local_rank(),
        "MACHINE": get_machine(),
        "NUM_NODES": get_num_nodes(),
        "NGPUS": get_num_nodes() * get_gpus_per_node(),
        "NGPUS_AVAILABLE": get_world_size_total(),
        "NODE_ID": get_node_index(),
        "RANK": get_rank(),
        "SCHEDULER": get_scheduler(),
        "SYSTEM": setup["system"],
        "JOB_ID": setup["job_id"],
        "WORLD_SIZE_TOTAL": get_world_size_total(),
        "WORLD_SIZE_IN_USE": get_world_size_in_use(),
        "world_size": get_world_size(),
        "EZPZ_RUN_COMMAND": _os.environ.get("EZPZ_RUN_COMMAND", sys.argv[0] if sys.argv else ""),
    }
    if verbose:
        import json

        _logger().info("DistInfo=%s", json.dumps(info, indent=4, sort_keys=True))
    return info


def query_environment():
    """{"world_size", "rank", "local_rank"}: WORLD_SIZE, RANK and LOCAL_RANK when all three are set,
    else the runtime's."""
    names = ("WORLD_SIZE", "RANK", "LOCAL_RANK")
    if all(_os.environ.get(name) for name in names):
        return {key.lower(): int(_os.environ[key]) for key in names}
    return {"world_size": get_world_size(), "rank": get_rank(), "local_rank": get_local_rank()}


def print_dist_setup(hostfile=None, display=True):
    """This rank's one-line summary, "['host'][device='cuda'][node=0/1][local_rank=2/3][rank=2/7]";
    ``display=True`` logs it. Rank 0 also warns how many of the available devices the job uses."""
    setup = _setup()
    rank, world_size, local_rank = setup["rank"], setup["world_size"], setup["local_rank"]
    per_node, nodes, node = setup["local_world_size"], setup["nodes"], setup["node_rank"]
    device = get_torch_device_type()
    rw, lw, nw = (len(str(max(0, n - 1))) for n in (world_size, per_node, nodes))
    text = (f"['{get_hostname()}'][device='{device}'][node={node:>0{nw}d}/{nodes - 1:<0{nw}d}]"
            f"[local_rank={local_rank:>0{lw}d}/{per_node - 1:<0{lw}d}][rank={rank:>0{rw}d}/{world_size - 1:<0{rw}d}]")
    logger = _logger()
    if display:
        logger.info(text)
    if rank == 0:
        logger.warning('Using [%d / %d] available "%s" devices !!', world_size, get_world_size_total(), device)
    return text


def seed_everything(seed):
    """Seeds Python's random, NumPy (when installed), torch and this rank's accelerator with ``seed``,
    and sets PYTHONHASHSEED."""
    import random

    import torch

    random.seed(seed)
    _os.environ["PYTHONHASHSEED"] = str(seed)
    try:
        import numpy
    except ImportError:
        numpy = None
    if numpy is not None:
        numpy.random.seed(seed)
    torch.manual_seed(seed)
    for device_type in ("cuda", "xpu"):
        module = _device_module(torch, device_type)
        if module is not None:
            module.manual_seed(seed)


def log_dict_as_bulleted_list(d, name=None):
    """Logs ``d`` as "[name]:" and one "  - key=value" line per item."""
    tag = name or getattr(d, "__qualname__", "dict")
    lines = [f"[{tag}]:"] + [f"  - {key}={value}" for key, value in d.items()]
    _logger().info("\n\n%s\n", "\n".join(lines))


def timeitlogit(rank=None, record=True, verbose=False, prefix=None):
    """A decorator that times each call of a function: logged on rank 0 when ``verbose``, and with
    ``record`` given to wandb.log({"<prefix>/<name>": seconds}, commit=False) when a wandb run is
    active (wandb is never imported for it)."""
    import functools
    import time

    which = rank if rank is not None else get_rank()
    prefix = prefix or "timeit"

    def decorator(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            result = func(*args, **kwargs)
            seconds = time.perf_counter() - start
            name = getattr(func, "__qualname__", getattr(func, "__name__", "unknown"))
            import sys

            wandb = sys.modules.get("wandb")
            if record and wandb is not None and getattr(wandb, "run", None) is not None:
                try:
                    wandb.log({f"{prefix}/{name}": seconds}, commit=False)
                except Exception:  # noqa: BLE001 - timing must never break the timed call
                    pass
            if verbose and which == 0:
                inner = ", ".join(filter(None, [", ".join(map(str, args)),
                                                ", ".join(f"{k}={v}" for k, v in kwargs.items())]))
                _logger().info("%s(%s) took %.4f s", name, inner, seconds)
            return result

        return wrapper

    return decorator


# ===================================================================
# Trackers: ezpz.tracker's, under the names the Python ezpz also has here
# ===================================================================


def setup_wandb(*args, **kwargs):
    """ezpz.tracker.setup_wandb."""
    from .tracker import setup_wandb as setup

    return setup(*args, **kwargs)


def setup_mlflow(*args, **kwargs):
    """ezpz.tracker.setup_mlflow."""
    from .tracker import setup_mlflow as setup

    return setup(*args, **kwargs)


def verify_wandb(*args, **kwargs):
    """ezpz.tracker.verify_wandb."""
    from .tracker import verify_wandb as verify

    return verify(*args, **kwargs)


# ===================================================================
# Host files
# ===================================================================


def get_nodes_from_hostfile(hostfile):
    """The distinct hosts ``hostfile`` lists, in order (read by ezpz's host-file rules); [this host]
    when it is not a file."""
    if not _os.path.isfile(hostfile):
        return [get_hostname()]
    env = {"EZPZ_HOSTFILE": _os.fspath(_os.path.abspath(hostfile)), "EZPZ_SYSTEM": _setup()["system"]}
    return _api.call("rank_setup", env=env)["hosts"]


def write_hostfile_from_list_of_hosts(hosts, hostfile):
    """Writes ``hosts`` one per line to ``hostfile`` (parents created); returns its pathlib.Path."""
    from pathlib import Path

    path = Path(hostfile)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(hosts) + "\n")
    return path


def get_hostfile_with_fallback(hostfile=None):
    """A host file of this job: ``hostfile`` when it is a file, else $EZPZ_HOSTFILE, $PBS_NODEFILE or
    $HOSTFILE, else ./hostfile written with the allocation's hosts (or this host)."""
    from pathlib import Path

    for candidate in (hostfile, _os.environ.get("EZPZ_HOSTFILE"), _os.environ.get("PBS_NODEFILE"),
                      _os.environ.get("HOSTFILE")):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return write_hostfile_from_list_of_hosts(_setup()["hosts"] or [get_hostname()], Path.cwd() / "hostfile")
