"""Tensor, pipeline, context and data parallel process groups (the Python ezpz's ``ezpz.tp``), built by
``ezpz.setup_torch(tensor_parallel_size=…, pipeline_parallel_size=…, context_parallel_size=…)``.

The ranks form a grid [data][pipeline][context][tensor], tensor fastest: with 8 ranks and
tensor_parallel_size=2, the tensor groups are [0, 1] [2, 3] [4, 5] [6, 7] and the data groups [0, 2, 4, 6]
[1, 3, 5, 7]. Every rank creates every group with torch.distributed.new_group, in the order data,
tensor, pipeline, context (torch requires the same order on all ranks), and keeps its own.
"""

_GROUPS = {}  # kind ("data", "tensor", "pipeline", "context") → (group, ranks) of this rank

_KINDS = ("data", "tensor", "pipeline", "context")


def _grid_groups(world_size, tp, pp, cp):
    """For each kind, the lists of ranks that form its groups, in creation order."""
    dp = world_size // (tp * pp * cp)

    def rank(d, p, c, t):
        return ((d * pp + p) * cp + c) * tp + t

    return {
        "data": [[rank(d, p, c, t) for d in range(dp)] for p in range(pp) for c in range(cp) for t in range(tp)],
        "tensor": [[rank(d, p, c, t) for t in range(tp)] for d in range(dp) for p in range(pp) for c in range(cp)],
        "pipeline": [[rank(d, p, c, t) for p in range(pp)] for d in range(dp) for c in range(cp) for t in range(tp)],
        "context": [[rank(d, p, c, t) for c in range(cp)] for d in range(dp) for p in range(pp) for t in range(tp)],
    }


def initialize_tensor_parallel(tensor_parallel_size=1, pipeline_parallel_size=1, context_parallel_size=1,
                               tensor_parallel_backend=None, pipeline_parallel_backend=None,
                               context_parallel_backend=None, data_parallel_backend=None, timeout=None):
    """Builds the four kinds of groups over the initialised process group. Raises ValueError when the
    world size is not a multiple of tensor × pipeline × context, RuntimeError when they exist already
    or there is no process group."""
    import torch.distributed as dist

    if not dist.is_initialized():
        raise RuntimeError("ezpz.tp.initialize_tensor_parallel: no process group; call ezpz.setup_torch() first")
    if _GROUPS:
        raise RuntimeError("ezpz.tp: the parallel groups are already initialized")
    world_size, me = dist.get_world_size(), dist.get_rank()
    tp = int(min(tensor_parallel_size, world_size))
    pp, cp = int(pipeline_parallel_size), int(context_parallel_size)
    if min(tp, pp, cp) < 1 or world_size % (tp * pp * cp):
        raise ValueError(f"ezpz.tp: world size {world_size} is not a multiple of tensor ({tp}) x pipeline ({pp}) "
                         f"x context ({cp}) parallel sizes")
    backends = {"data": data_parallel_backend, "tensor": tensor_parallel_backend,
                "pipeline": pipeline_parallel_backend, "context": context_parallel_backend}
    options = {"timeout": timeout} if timeout is not None else {}
    for kind, groups in _grid_groups(world_size, tp, pp, cp).items():
        for ranks in groups:
            group = dist.new_group(ranks, backend=backends[kind], **options)
            if me in ranks:
                _GROUPS[kind] = (group, ranks)
    if me == 0:
        import logging

        logging.getLogger(__name__).info("TP: %d, PP: %d, CP: %d, DP: %d", tp, pp, cp, world_size // (tp * pp * cp))


def tensor_parallel_is_initialized():
    """Whether initialize_tensor_parallel() ran."""
    return bool(_GROUPS)


def _get(kind):
    if kind not in _GROUPS:
        raise RuntimeError(f"ezpz.tp: the {kind} parallel group is not initialized "
                           "(ezpz.setup_torch(tensor_parallel_size=…) builds it)")
    return _GROUPS[kind]


def _rank_in(kind):
    group, ranks = _get(kind)
    import torch.distributed as dist

    return ranks.index(dist.get_rank())


def get_tensor_parallel_group():
    return _get("tensor")[0]


def get_tensor_parallel_ranks():
    return list(_get("tensor")[1])


def get_tensor_parallel_world_size():
    return len(_get("tensor")[1])


def get_tensor_parallel_rank():
    return _rank_in("tensor")


def get_tensor_parallel_src_rank():
    """The global rank of the first rank of this rank's tensor group."""
    return _get("tensor")[1][0]


def get_pipeline_parallel_group():
    return _get("pipeline")[0]


def get_pipeline_parallel_ranks():
    return list(_get("pipeline")[1])


def get_pipeline_parallel_world_size():
    return len(_get("pipeline")[1])


def get_pipeline_parallel_rank():
    return _rank_in("pipeline")


def get_context_parallel_group():
    return _get("context")[0]


def get_context_parallel_ranks():
    return list(_get("context")[1])


def get_context_parallel_world_size():
    return len(_get("context")[1])


def get_context_parallel_rank():
    return _rank_in("context")


def get_data_parallel_group():
    return _get("data")[0]


def get_data_parallel_ranks():
    return list(_get("data")[1])


def get_data_parallel_world_size():
    return len(_get("data")[1])


def get_data_parallel_rank():
    return _rank_in("data")


def destroy_tensor_parallel():
    """Forgets the groups (torch.distributed.destroy_process_group() ends them with the default group)."""
    _GROUPS.clear()
