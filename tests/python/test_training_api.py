"""pytest for the training API of the ezpz Python module (src/python/ezpz: distributed, dist, log, utils,
flops, launch, tp): the Python ezpz's names, signatures and defaults, the facts that come from the C++
rank_setup (ranks, nodes, devices, job id, hosts), the device type chosen from TORCH_DEVICE and the C++
answer for cuda/xpu/mps/cpu, rank-0-only logging, and clear errors for what this torch lacks. The
collectives and wrappers across real ranks are in training_api_check.py (ctest python.training_api_*).

    PYTHONPATH=build/python /usr/bin/python3 -m pytest tests/python/test_training_api.py
"""
import inspect
import logging
import os
import pathlib
import re
import subprocess
import sys
import types

import pytest

import ezpz
import ezpz.distributed as distributed

# Launcher and job variables of an outer job or launcher: none may leak into a test's environment.
_OUTSIDE = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "NODE_RANK", "GROUP_RANK", "MASTER_ADDR",
            "MASTER_PORT", "TORCH_DEVICE", "TORCH_BACKEND", "EZPZ_TORCH_DEVICE", "EZPZ_TORCH_BACKEND", "EZPZ_SYSTEM",
            "EZPZ_HOSTS", "EZPZ_HOSTFILE", "EZPZ_JOB_ID", "EZPZ_SCHEDULER", "EZPZ_LOG_LEVEL", "LOG_LEVEL",
            "EZPZ_LOG_FROM_ALL_RANKS", "LOG_FROM_ALL_RANKS", "EZPZ_TRACK_MEMORY", "TORCH_DDP_TIMEOUT")
_PREFIXES = ("PMI_", "PMIX_", "PALS_", "OMPI_", "MPI_", "MPICH_", "SLURM_", "PBS_", "CUDA_VISIBLE", "ROCR_VISIBLE",
             "HIP_VISIBLE", "ZE_AFFINITY", "TORCHELASTIC_", "FLUX_")


def clean_env(**variables):
    env = {k: v for k, v in os.environ.items() if k not in _OUTSIDE and not k.startswith(_PREFIXES)}
    env.update(variables)
    return env


@pytest.fixture
def rank_env(monkeypatch):
    """Sets this process's environment to exactly the given variables (plus PATH and the like) and
    forgets the rank setup, so the next call asks the C++ runtime again."""

    def apply(**variables):
        for name in list(os.environ):
            if name in _OUTSIDE or name.startswith(_PREFIXES):
                monkeypatch.delenv(name)
        for name, value in variables.items():
            monkeypatch.setenv(name, value)
        distributed._SETUP = None

    yield apply
    distributed._SETUP = None


def run_python(code, env, timeout=120):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=timeout)


def torch_or_skip():
    torch = pytest.importorskip("torch")
    return torch


# ------------------------------------------------------------------ import and names


def test_import_ezpz_and_non_torch_names_import_nothing_heavy():
    code = ("import sys, ezpz; before = set(sys.modules); ezpz.get_rank(); ezpz.get_world_size(total=True); "
            "ezpz.get_timestamp(); ezpz.get_active_jobid(); ezpz.get_machine(); ezpz.get_torch_device(); "
            "heavy = ('torch', 'numpy', 'matplotlib', 'wandb', 'mlflow'); "
            "print(sorted(m for m in before if m.split('.')[0] in heavy + ('ezpz',) and m != 'ezpz' "
            "and m != 'ezpz._api')); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))")
    answer = run_python(code, clean_env(EZPZ_SYSTEM="local"))
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.split("\n")[:2] == ["[]", "[]"], answer.stdout


def test_every_public_name_resolves_from_its_module():
    available = {module: pathlib.Path(ezpz.__file__).with_name(f"{module}.py").exists()
                 for module in set(ezpz._LAZY.values())}
    for name, module in ezpz._LAZY.items():
        if not available[module]:
            continue  # ezpz.history / ezpz.tracker come from another part of the package
        value = getattr(ezpz, name)
        assert value is getattr(sys.modules[f"ezpz.{module}"], name), name
        assert name in dir(ezpz) and name in ezpz.__all__
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        ezpz.no_such_name  # noqa: B018


def test_module_paths_of_the_python_ezpz():
    from ezpz.distributed import setup_torch
    from ezpz.flops import compute_mfu, try_estimate  # noqa: F401
    from ezpz.launch import get_active_jobid, get_nodelist_of_active_job  # noqa: F401
    from ezpz.log import get_logger, silence_noisy_loggers  # noqa: F401
    from ezpz.utils import get_memory_metrics, get_timestamp  # noqa: F401

    assert ezpz.setup_torch is setup_torch
    assert ezpz.distributed is sys.modules["ezpz.distributed"]
    assert ezpz.tp.initialize_tensor_parallel
    code = ("import warnings; warnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as seen:\n"
            "    import ezpz.dist as dist\n"
            "print(dist.setup_torch is __import__('ezpz').distributed.setup_torch, "
            "[w.category.__name__ for w in seen], sorted(set(__import__('ezpz').distributed.__all__) - set(dir(dist))))")
    answer = run_python(code, clean_env())
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.strip() == "True ['DeprecationWarning'] []"


# The Python ezpz's signatures (src/ezpz/distributed.py, log/__init__.py, utils/__init__.py, flops.py):
# parameter names, kinds and defaults in order; ezpz may add parameters after them (setup_torch's backend).
_THEIRS = {
    "setup_torch": "(port=None, seed=None, timeout=None, verbose=False, *, tensor_parallel_size=1, "
                   "pipeline_parallel_size=1, context_parallel_size=1, tensor_parallel_backend=None, "
                   "pipeline_parallel_backend=None, context_parallel_backend=None, data_parallel_backend=None, "
                   "device_id=None",
    "get_world_size": "(*, total=False, in_use=False)",
    "get_torch_device": "(*, device_type=None, as_torch_device=None)",
    "get_torch_device_type": "(device_type=None)",
    "wrap_model": "(model, use_fsdp=True, dtype='bfloat16', device_mesh=None, reshard_after_forward=True, "
                  "device_id=None)",
    "wrap_model_for_ddp": "(model)",
    "wrap_model_for_fsdp": "(model, dtype='bfloat16', device_id=None, **kwargs)",
    "wrap_model_for_fsdp2": "(model, dtype='bfloat16', device_mesh=None, **kwargs)",
    "init_device_mesh_safe": "(device_type, mesh_shape, *, mesh_dim_names=None)",
    "get_logger": "(name=None, level=None, rank_zero_only=True, rank=None, colored_logs=True)",
    "silence_noisy_loggers": "(*, extra=None, level=30, silence_transformers=True, silence_datasets=True)",
    "timeitlogit": "(rank=None, record=True, verbose=False, prefix=None)",
    "barrier": "(group=None, implementation=None)",
    "all_reduce": "(obj, op=None, implementation=None)",
    "broadcast": "(obj, root=0)",
    "synchronize": "(device=None)",
    "seed_everything": "(seed)",
    "get_dist_info": "(verbose=None, hostfile=None)",
    "print_dist_setup": "(hostfile=None, display=True)",
    "get_machine": "(hostname=None)",
    "get_num_nodes": "(hostfile=None)",
    "get_memory_metrics": "(device=None, *, reset_peak=True, prefix='')",
    "get_timestamp": "(fstr=None)",
    "compute_mfu": "(model_flops, step_duration, *, device_name=None, peak_flops=None)",
    "try_estimate": "(model, input_shape, *, device=None, backward=True)",
    "get_active_jobid": "()",
    "get_nodelist_of_active_job": "()",
}


@pytest.mark.parametrize("name", sorted(_THEIRS))
def test_signatures_are_the_python_ezpz_ones(name):
    ours = str(inspect.signature(getattr(ezpz, name)))
    assert ours.startswith(_THEIRS[name].rstrip(")")), ours
    if _THEIRS[name].endswith(")"):
        assert ours == _THEIRS[name]


# ------------------------------------------------------------------ facts from the C++ rank_setup


def test_a_polaris_rank_knows_its_job_hosts_and_devices(rank_env, tmp_path):
    nodefile = tmp_path / "nodefile"
    nodefile.write_text("x3005c0s13b1n0\nx3005c0s13b1n0\nx3005c0s19b0n0\n")
    rank_env(EZPZ_SYSTEM="polaris", PMI_RANK="5", PMI_SIZE="8", PMI_LOCAL_RANK="1", PMI_LOCAL_SIZE="4",
             PBS_JOBID="123.polaris-pbs-01", PBS_NODEFILE=str(nodefile))
    assert (ezpz.get_rank(), ezpz.get_local_rank(), ezpz.get_world_size()) == (5, 1, 8)
    assert (ezpz.get_num_nodes(), ezpz.get_node_index(), ezpz.get_gpus_per_node()) == (2, 1, 4)
    assert ezpz.get_world_size(total=True) == ezpz.distributed.get_world_size_total() == 8
    assert ezpz.get_world_size(in_use=True) == 8
    assert ezpz.get_active_jobid() == "123.polaris-pbs-01"
    assert ezpz.get_nodelist_of_active_job() == ["x3005c0s13b1n0", "x3005c0s19b0n0"]
    assert (ezpz.get_machine(), ezpz.get_scheduler()) == ("Polaris", "PBS")
    assert (ezpz.get_torch_device_type(), ezpz.get_torch_device(), ezpz.get_torch_backend()) == ("cuda", "cuda",
                                                                                                  "nccl")
    info = ezpz.get_dist_info()
    assert {k: info[k] for k in ("RANK", "LOCAL_RANK", "NUM_NODES", "NODE_ID", "GPUS_PER_NODE", "MACHINE",
                                 "SCHEDULER", "world_size", "DEVICE", "DISTRIBUTED_BACKEND", "HOSTFILE")} == {
        "RANK": 5, "LOCAL_RANK": 1, "NUM_NODES": 2, "NODE_ID": 1, "GPUS_PER_NODE": 4, "MACHINE": "Polaris",
        "SCHEDULER": "PBS", "world_size": 8, "DEVICE": "cuda", "DISTRIBUTED_BACKEND": "nccl",
        "HOSTFILE": str(nodefile)}
    assert info["HOSTS"] == str(["x3005c0s13b1n0", "x3005c0s19b0n0"])
    assert ezpz.print_dist_setup(display=False) == (
        f"['{ezpz.get_hostname()}'][device='cuda'][node=1/1][local_rank=1/3][rank=5/7]")


def test_outside_a_job_a_lone_process_on_the_cpu(rank_env):
    rank_env(EZPZ_SYSTEM="local")
    assert (ezpz.get_rank(), ezpz.get_local_rank(), ezpz.get_world_size(), ezpz.get_num_nodes()) == (0, 0, 1, 1)
    assert (ezpz.get_gpus_per_node(), ezpz.get_world_size(total=True), ezpz.get_node_index()) == (0, 1, 0)
    assert ezpz.get_active_jobid() is None and ezpz.get_nodelist_of_active_job() is None
    assert ezpz.get_machine() == ezpz.get_hostname() == os.uname().nodename.lower()
    assert ezpz.get_scheduler() == "UNKNOWN" and ezpz.get_scheduler("pbs") == "PBS"
    assert ezpz.distributed.get_cpus_per_node() == os.cpu_count()
    assert ezpz.distributed.query_environment() == {"world_size": 1, "rank": 0, "local_rank": 0}


def test_a_generic_slurm_cluster_is_named_by_its_host(rank_env):
    rank_env(SLURM_JOB_ID="4242", SLURM_JOB_NODELIST="nid[001-002]", EZPZ_SYSTEM="slurm")
    assert ezpz.get_scheduler() == "SLURM"
    assert ezpz.get_machine() == ezpz.get_hostname()
    assert ezpz.get_nodelist_of_active_job() == ["nid001", "nid002"]
    assert ezpz.get_active_jobid() == "4242"
    rank_env(SLURM_JOB_ID="4242", EZPZ_SCHEDULER="pbs")
    assert ezpz.get_scheduler() == "PBS"


def test_get_machine_of_a_host_name_is_its_detected_system():
    assert ezpz.get_machine("x4102c5s0b0n0") == "Aurora"
    assert ezpz.get_machine("my-laptop") == "my-laptop"


def test_host_files_are_read_by_the_cpp_rules(rank_env, tmp_path):
    rank_env(EZPZ_SYSTEM="local")
    hostfile = tmp_path / "hostfile"
    hostfile.write_text("b.example\nb.example\na.example\n")
    assert ezpz.distributed.get_nodes_from_hostfile(hostfile) == ["b.example", "a.example"]
    assert ezpz.get_num_nodes(hostfile) == 2
    assert ezpz.distributed.get_nodes_from_hostfile(tmp_path / "none") == [ezpz.get_hostname()]


# ------------------------------------------------------------------ device type from the inputs


@pytest.mark.parametrize("variables, device_type, device, backend, gpus", [
    ({"EZPZ_SYSTEM": "local"}, "cpu", "cpu", "gloo", 0),
    ({"EZPZ_SYSTEM": "local", "CUDA_VISIBLE_DEVICES": "0,1"}, "cuda", "cuda", "nccl", 2),
    ({"EZPZ_SYSTEM": "local", "ROCR_VISIBLE_DEVICES": "0,1,2"}, "cuda", "cuda", "nccl", 3),  # ROCm is torch's cuda
    ({"EZPZ_SYSTEM": "aurora", "PALS_RANKID": "0", "PALS_LOCAL_RANKID": "0", "PMI_RANK": "0", "PMI_SIZE": "1"},
     "xpu", "xpu", "xccl", 12),
    ({"EZPZ_SYSTEM": "polaris", "EZPZ_TORCH_DEVICE": "cpu"}, "cpu", "cpu", "gloo", 0),
    ({"EZPZ_SYSTEM": "local", "TORCH_DEVICE": "MPS"}, "mps", "mps", "gloo", 0),
    ({"EZPZ_SYSTEM": "local", "TORCH_DEVICE": "cuda:1", "TORCH_BACKEND": "nccl"}, "cuda", "cuda:1", "nccl", 0),
    ({"EZPZ_SYSTEM": "polaris", "TORCH_DEVICE": "cpu", "TORCH_BACKEND": "gloo"}, "cpu", "cpu", "gloo", 4),
])
def test_device_type_from_torch_device_and_the_runtime(rank_env, variables, device_type, device, backend, gpus):
    rank_env(**variables)
    assert ezpz.get_torch_device_type() == device_type
    assert ezpz.get_torch_device() == device
    assert ezpz.get_torch_backend() == backend
    assert ezpz.get_gpus_per_node() == gpus


def test_an_explicit_or_unsupported_device_type(rank_env, caplog):
    rank_env(EZPZ_SYSTEM="local", TORCH_DEVICE="tpu:0")
    with caplog.at_level(logging.WARNING):
        assert ezpz.get_torch_device_type() == "cpu"
    assert "Ignoring unsupported TORCH_DEVICE=tpu:0" in caplog.text
    assert ezpz.get_torch_device_type("xpu") == "xpu"
    assert ezpz.get_torch_device(device_type="mps") == "mps"
    with pytest.raises(ValueError, match="Unsupported device_type='tpu'"):
        ezpz.get_torch_device_type("tpu")
    torch = torch_or_skip()
    assert ezpz.get_torch_device(as_torch_device=True) == torch.device("cpu")
    rank_env(EZPZ_SYSTEM="local", TORCH_DEVICE="cuda:1")
    assert ezpz.get_torch_device(as_torch_device=True) == torch.device("cuda", 1)


def fake_accelerator(monkeypatch, torch, calls, name):
    """torch.<name> as a machine with that accelerator would have it, each call recorded in ``calls``:
    the real module's functions replaced where torch has one (torch.cuda), else a stand-in module."""

    def record(function):
        return lambda *args, **kwargs: calls.append((name, function, args)) or 0

    module = getattr(torch, name, None)
    if not isinstance(module, types.ModuleType):
        module = types.SimpleNamespace()
        monkeypatch.setattr(torch, name, module, raising=False)
    monkeypatch.setattr(module, "is_available", lambda: True, raising=False)
    monkeypatch.setattr(module, "current_device", lambda: 0, raising=False)
    for function in ("synchronize", "manual_seed", "manual_seed_all", "memory_allocated", "max_memory_allocated",
                     "memory_reserved", "max_memory_reserved", "reset_peak_memory_stats", "set_device"):
        monkeypatch.setattr(module, function, record(function), raising=False)
    return module


@pytest.mark.parametrize("device_type", ["cuda", "xpu", "mps", "cpu"])
def test_synchronize_and_seed_drive_this_ranks_accelerator_only(rank_env, monkeypatch, device_type):
    torch = torch_or_skip()
    calls = []
    for name in ("cuda", "xpu", "mps"):
        fake_accelerator(monkeypatch, torch, calls, name)
    monkeypatch.setattr(torch.backends, "mps", types.SimpleNamespace(is_available=lambda: device_type == "mps"),
                        raising=False)
    rank_env(EZPZ_SYSTEM="local", TORCH_DEVICE=device_type)
    ezpz.synchronize()
    expected = [] if device_type == "cpu" else [(device_type, "synchronize", () if device_type == "mps" else (None,))]
    assert calls == expected
    calls.clear()
    ezpz.seed_everything(3)
    assert {name for name, function, _ in calls if function == "manual_seed"} == {"cuda", "xpu"}


def test_synchronize_without_the_accelerator_in_torch_does_nothing(rank_env, monkeypatch):
    torch = torch_or_skip()
    monkeypatch.delattr(torch, "xpu", raising=False)
    rank_env(EZPZ_SYSTEM="local", TORCH_DEVICE="xpu")
    ezpz.synchronize()  # no torch.xpu: nothing to wait for, and no error


def test_memory_metrics_on_an_accelerator_and_none_elsewhere(rank_env, monkeypatch):
    torch = torch_or_skip()
    rank_env(EZPZ_SYSTEM="local")
    assert ezpz.get_memory_metrics() == {}
    calls = []
    accelerator = fake_accelerator(monkeypatch, torch, calls, "cuda")
    monkeypatch.setattr(accelerator, "memory_allocated", lambda device: 2 * 1024 ** 3)
    monkeypatch.setattr(accelerator, "max_memory_allocated", lambda device: 3 * 1024 ** 3)
    rank_env(EZPZ_SYSTEM="local", TORCH_DEVICE="cuda:0")
    metrics = ezpz.get_memory_metrics(prefix="train/")
    assert metrics == {"train/mem_alloc": 2.0, "train/mem_peak_alloc": 3.0, "train/mem_reserved": 0.0,
                       "train/mem_peak_reserved": 0.0}
    assert ("cuda", "reset_peak_memory_stats", ("cuda:0",)) in calls
    assert ezpz.format_memory_summary(metrics) == "2.00/3.00GiB (cur/peak)"
    assert ezpz.is_memory_metric_key("train/mem_alloc/mean") and not ezpz.is_memory_metric_key("mem_loss")
    monkeypatch.setenv("EZPZ_TRACK_MEMORY", "0")
    assert ezpz.get_memory_metrics() == {}


# ------------------------------------------------------------------ logging


def log_lines(rank_env, capsys, variables, **kwargs):
    rank_env(EZPZ_SYSTEM="local", **variables)
    logger = ezpz.get_logger("ezpz_test_logger", **kwargs)
    logger.info("an info line")
    logger.critical("a critical line")
    return capsys.readouterr().out.splitlines()


def test_the_logger_prints_on_rank_zero_only(rank_env, capsys):
    rank1 = {"RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "2"}
    lines = log_lines(rank_env, capsys, {})
    assert len(lines) == 2
    assert re.fullmatch(r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\]\[I\]\[python/test_training_api:\d+:log_lines\] "
                        r"an info line", lines[0]), lines
    assert re.fullmatch(r"\[[^]]+\]\[C\]\[python/test_training_api:\d+:log_lines\] a critical line", lines[1])
    assert [line.split("] ", 1)[1] for line in log_lines(rank_env, capsys, rank1)] == ["a critical line"]
    assert len(log_lines(rank_env, capsys, rank1, rank_zero_only=False)) == 2
    every = log_lines(rank_env, capsys, {**rank1, "EZPZ_LOG_FROM_ALL_RANKS": "1"})
    assert len(every) == 2 and all(line.startswith("[1][") for line in every)
    assert [line.split("] ", 1)[1] for line in log_lines(rank_env, capsys, {"EZPZ_LOG_LEVEL": "WARNING"})] == [
        "a critical line"]
    assert len(log_lines(rank_env, capsys, {"EZPZ_LOG_LEVEL": "WARNING"}, level="INFO")) == 2
    assert ezpz.log.getLogger("ezpz_test_logger") is logging.getLogger("ezpz_test_logger")


def test_silence_noisy_loggers_imports_nothing(monkeypatch):
    for name in ("TRANSFORMERS_VERBOSITY", "DATASETS_VERBOSITY"):
        monkeypatch.delenv(name, raising=False)
    ezpz.silence_noisy_loggers(extra=("ezpz_test_noisy",))
    assert logging.getLogger("httpx").level == logging.WARNING
    assert logging.getLogger("ezpz_test_noisy").level == logging.WARNING
    assert "transformers" not in sys.modules or os.environ.get("TRANSFORMERS_VERBOSITY") is None
    if "transformers" not in sys.modules:
        assert os.environ["TRANSFORMERS_VERBOSITY"] == "error"


def test_timeitlogit_logs_on_rank_zero_when_verbose(rank_env, caplog):
    rank_env(EZPZ_SYSTEM="local")

    @ezpz.timeitlogit(verbose=True)
    def step(x, scale=2):
        return x * scale

    with caplog.at_level(logging.INFO, logger="ezpz.distributed"):
        assert step(3) == 6
    assert re.search(r"step\(3\) took \d+\.\d{4} s", caplog.text)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="ezpz.distributed"):
        assert ezpz.timeitlogit(rank=1, verbose=True)(lambda: 5)() == 5
    assert "took" not in caplog.text


# ------------------------------------------------------------------ utils


def test_timestamp_and_summaries():
    assert re.fullmatch(r"\d{4}-\d\d-\d\d-\d{6}", ezpz.get_timestamp())
    assert re.fullmatch(r"\d{4}/\d\d", ezpz.get_timestamp("%Y/%m"))
    assert ezpz.summarize_dict({"loss": 0.5, "iter": 3, "ok": True, "skip": 1}, precision=3,
                               keys_to_skip=["skip"]) == "loss=0.500 iter=3 ok=True"
    assert ezpz.format_pair("x", {"a": [1, 2.0]}, precision=1) == "x.a[0]=1\nx.a[1]=2.0"


# ------------------------------------------------------------------ flops


def test_compute_mfu_against_a_hand_computation():
    assert ezpz.compute_mfu(3e14, 2.0, peak_flops=1.5e14) == pytest.approx(100.0)
    assert ezpz.compute_mfu(312e12 / 4, 1.0, device_name="NVIDIA A100-SXM4-80GB") == pytest.approx(25.0)
    assert ezpz.compute_mfu(1e12, 0.0, peak_flops=1e12) == 0.0
    assert ezpz.compute_mfu(1e12, 1.0, device_name="cpu") == 0.0
    assert ezpz.flops.get_peak_flops("NVIDIA H100 PCIe") == 756e12
    assert ezpz.flops.get_peak_flops("NVIDIA H100 80GB HBM3") == 989e12
    with pytest.warns(UserWarning, match="Peak FLOPS unknown for 'Mystery GPU'"):
        assert ezpz.flops.get_peak_flops("Mystery GPU") is None


def test_try_estimate_counts_linear_and_conv_layers(rank_env):
    torch = torch_or_skip()
    rank_env(EZPZ_SYSTEM="local")
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.Flatten(), torch.nn.Linear(8 * 8 * 8, 10))
    dummy = torch.randn(2, 3, 10, 10)
    # Conv: 2 × outputs (2·8·8·8) × inputs per output (3·3·3); Linear: 2 × outputs (2·10) × 512.
    assert ezpz.flops._count_with_hooks(model, dummy) == 2 * 1024 * 27 + 2 * 20 * 512
    has_counter = hasattr(__import__("torch.utils", fromlist=["x"]), "flop_counter")
    linear = torch.nn.Linear(8, 16)
    if not has_counter:
        assert ezpz.try_estimate(linear, (4, 8)) == 3 * 2 * 4 * 16 * 8
        assert ezpz.try_estimate(linear, (4, 8), backward=False) == 2 * 4 * 16 * 8
    assert linear.weight.grad is None, "the estimate leaves the gradients alone"
    assert ezpz.try_estimate(linear, (4, 9)) == 0  # a shape the model cannot take: 0, not an exception


# ------------------------------------------------------------------ what this torch lacks; setup_torch


def test_a_mesh_and_fsdp2_name_the_torch_that_lacks_them(rank_env):
    torch = torch_or_skip()
    rank_env(EZPZ_SYSTEM="local")
    if ezpz.distributed._fully_shard() is None:
        with pytest.raises(RuntimeError, match=re.escape(f"this torch ({torch.__version__}) has no fully_shard")):
            ezpz.wrap_model_for_fsdp2(torch.nn.Linear(2, 2))
    try:
        import torch.distributed.device_mesh  # noqa: F401
    except ImportError:
        with pytest.raises(RuntimeError, match=re.escape(f"this torch ({torch.__version__}) has no "
                                                         "torch.distributed.device_mesh")):
            ezpz.init_device_mesh_safe("cpu", (1,))
    # A two-rank job on CUDA asks for FSDP2's mesh: an error naming the torch where there is no FSDP2.
    rank_env(EZPZ_SYSTEM="local", RANK="0", WORLD_SIZE="2", LOCAL_RANK="0", LOCAL_WORLD_SIZE="2", TORCH_DEVICE="cuda")
    if ezpz.distributed._fully_shard() is None:
        with pytest.raises(RuntimeError, match=f"device_mesh needs FSDP2.*{re.escape(torch.__version__)}"):
            ezpz.wrap_model(torch.nn.Linear(2, 2), device_mesh=object())
    try:
        from torch.distributed.fsdp import ShardingStrategy
    except Exception:  # noqa: BLE001 - Debian's torch 1.13 on Python 3.11 breaks inside it
        for call in (lambda: ezpz.distributed._sharding_strategy(True),
                     lambda: ezpz.wrap_model_for_fsdp(torch.nn.Linear(2, 2))):
            with pytest.raises(RuntimeError, match=re.escape(f"this torch ({torch.__version__}) cannot import "
                                                             "torch.distributed.fsdp")):
                call()
    else:
        if not hasattr(ShardingStrategy, "HYBRID_SHARD"):
            with pytest.raises(RuntimeError, match="HYBRID_SHARD"):
                ezpz.distributed._sharding_strategy(4)
        assert ezpz.distributed._sharding_strategy(False) == ShardingStrategy.SHARD_GRAD_OP
    assert ezpz.distributed.resolve_fsdp_strategy("full-shard") is True


def test_wrap_model_leaves_a_lone_rank_alone(rank_env):
    torch = torch_or_skip()
    rank_env(EZPZ_SYSTEM="local")
    model = torch.nn.Linear(2, 2)
    assert ezpz.wrap_model(model) is model and ezpz.wrap_model(model, use_fsdp=False) is model


def test_setup_torch_seeds_everything_and_checks_its_arguments():
    torch_or_skip()
    code = ("import ezpz, random, os, torch, numpy; r = ezpz.setup_torch(seed=3); a = torch.rand(2).tolist(); "
            "b = random.random(); c = float(numpy.random.rand()); ezpz.seed_everything(3); "
            "print(r, a == torch.rand(2).tolist(), b == random.random(), c == float(numpy.random.rand()), "
            "os.environ['PYTHONHASHSEED'], torch.distributed.is_initialized()); ezpz.cleanup()")
    answer = run_python(code, clean_env(EZPZ_SYSTEM="local"))
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.split() == ["0", "True", "True", "True", "3", "True"]
    answer = run_python("import ezpz; ezpz.setup_torch(timeout=0)", clean_env(EZPZ_SYSTEM="local"))
    assert answer.returncode != 0 and "timeout=0; expected a positive number of seconds" in answer.stderr
    answer = run_python("import ezpz; ezpz.setup_torch(pipeline_parallel_size=2)", clean_env(EZPZ_SYSTEM="local"))
    assert answer.returncode != 0 and "world size 1 is not a multiple" in answer.stderr


def test_parallel_groups_lay_ranks_out_as_the_python_ezpz():
    groups = ezpz.tp._grid_groups(8, 2, 1, 1)
    assert groups["tensor"] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert groups["data"] == [[0, 2, 4, 6], [1, 3, 5, 7]]
    groups = ezpz.tp._grid_groups(16, 2, 2, 2)  # [data][pipeline][context][tensor], tensor fastest
    assert groups["tensor"][:2] == [[0, 1], [2, 3]]
    assert groups["context"][:3] == [[0, 2], [1, 3], [4, 6]]
    assert groups["pipeline"][:3] == [[0, 4], [1, 5], [2, 6]]
    assert groups["data"][:2] == [[0, 8], [1, 9]]
    for kind in groups:
        assert sorted(r for group in groups[kind] for r in group) == list(range(16))


def test_python_m_ezpz_launch_is_ezpz_launch():
    answer = subprocess.run([sys.executable, "-m", "ezpz.launch", "--help"], capture_output=True, text=True,
                            env=clean_env(), timeout=60)
    assert answer.returncode == 0, answer.stderr
    assert "ezpz launch" in answer.stdout
