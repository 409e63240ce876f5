"""pytest for ``python3 -m ezpz.run`` (src/python/ezpz/run.py): a script that expects its launcher to have
joined the process group runs in one that ezpz.setup_torch() joined, with the argv, __name__ and
sys.path it would have had under python3, and the group is destroyed at the end whatever the script
did; the exit code is the script's. One process, then 2 ranks under ezpz launch, a bare
mpiexec.mpich and torchrun. Skipped without torch or the launcher; failed instead under CI=true.

    PYTHONPATH=build/python EZPZ_BIN_UNDER_TEST=build/ezpz /usr/bin/python3 -m pytest tests/python/test_run.py
"""
import os
import shutil
import socket
import subprocess
import sys
import textwrap

import pytest

from launch_env import cannot_run, launch_env, need_torch

# What the launchers of an outer job or of ctest itself may have set: each run below starts clean.

# The script under test never joins a group itself: it uses the one ezpz.run joined, and an atexit hook
# (which runs after ezpz.run's clean-up) says whether the group is gone.
SCRIPT = textwrap.dedent("""
    import atexit, os, sys
    import torch, torch.distributed as dist

    atexit.register(lambda: print(f"at exit: group initialized {dist.is_initialized()}", flush=True))
    rank, size = dist.get_rank(), dist.get_world_size()
    total = torch.tensor([rank + 1])
    dist.all_reduce(total)
    here = os.path.dirname(os.path.abspath(__file__))
    print(f"rank {rank}/{size} sum {int(total)} name {__name__} argv {sys.argv[1:]} "
          f"path0 {sys.path[0] == here} argv0 {os.path.basename(sys.argv[0])}", flush=True)
    how = sys.argv[1] if len(sys.argv) > 1 else "return"
    if how == "exit3":
        sys.exit(3)
    if how == "raise":
        raise RuntimeError("the script failed")
    if how == "message":
        sys.exit("a message instead of a code")
""")


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return str(probe.getsockname()[1])


@pytest.fixture
def script(tmp_path):
    folder = tmp_path / "scripts"
    folder.mkdir()
    path = folder / "needs_group.py"
    path.write_text(SCRIPT)
    return path


def _run(argv, cwd, env=None):
    return subprocess.run(argv, capture_output=True, text=True, cwd=cwd, env=env or launch_env(EZPZ_SYSTEM="local"),
                          timeout=240)


def test_usage_and_a_missing_script_exit_2(tmp_path):
    for argv in ([], ["-m"], ["--help"]):
        answer = _run([sys.executable, "-m", "ezpz.run", *argv], tmp_path)
        assert answer.returncode == 2, answer
        assert answer.stderr.startswith("usage: python3 -m ezpz.run SCRIPT.py"), answer.stderr
    answer = _run([sys.executable, "-m", "ezpz.run", "missing.py", "--x"], tmp_path)
    assert answer.returncode == 2
    assert "can't open file 'missing.py'" in answer.stderr
    assert "torch" not in answer.stderr  # refused before the group is joined


def test_one_process_gets_a_group_argv_and_path_as_under_python3(script, tmp_path):
    need_torch()
    answer = _run([sys.executable, "-m", "ezpz.run", str(script), "return", "--flag", "x y"], tmp_path)
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.splitlines() == [
        "rank 0/1 sum 1 name __main__ argv ['return', '--flag', 'x y'] path0 True argv0 needs_group.py",
        "at exit: group initialized False",
    ]


@pytest.mark.parametrize("how, code, says", [
    ("exit3", 3, None),
    ("raise", 1, "RuntimeError: the script failed"),
    ("message", 1, "a message instead of a code"),
])
def test_the_scripts_exit_code_is_kept_and_the_group_destroyed(script, tmp_path, how, code, says):
    need_torch()
    answer = _run([sys.executable, "-m", "ezpz.run", str(script), how], tmp_path)
    assert answer.returncode == code, answer.stderr
    assert answer.stdout.splitlines()[-1] == "at exit: group initialized False"
    if says:
        assert says in answer.stderr


def test_a_module_runs_with_dash_m(script, tmp_path):
    need_torch()
    (script.parent / "needs_group_pkg").mkdir()
    (script.parent / "needs_group_pkg" / "__init__.py").write_text("")
    shutil.copy(script, script.parent / "needs_group_pkg" / "main.py")
    answer = _run([sys.executable, "-m", "ezpz.run", "-m", "needs_group_pkg.main", "return", "-v"], script.parent)
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.splitlines()[0].startswith("rank 0/1 sum 1 name __main__ argv ['return', '-v'] ")
    assert answer.stdout.splitlines()[0].endswith(" argv0 main.py")


def _launchers(ranks, tmp):
    """(name, argv prefix, environment, what is missing) of every launcher these tests use; torchrun's
    agent leaves a torchelastic_* directory in TMPDIR, here `tmp`."""
    ezpz_bin = os.environ.get("EZPZ_BIN_UNDER_TEST") or shutil.which("ezpz")
    port = _free_port()
    return [
        ("ezpz launch", [ezpz_bin or "ezpz", "launch", "--system", "local", "-n", str(ranks), "--"], launch_env(),
         None if ezpz_bin else "EZPZ_BIN_UNDER_TEST is not set and no ezpz is on PATH"),
        ("mpiexec.mpich", ["mpiexec.mpich", "-n", str(ranks)], launch_env(MASTER_PORT=port),
         None if shutil.which("mpiexec.mpich") else "mpiexec.mpich not found (Debian mpich)"),
        ("torchrun", ["/usr/bin/torchrun", "--nproc_per_node", str(ranks), "--master_port", port, "--redirects",
                      "9:1", "--tee", "9:1", "--no_python"], launch_env(TMPDIR=str(tmp)),
         None if os.path.exists("/usr/bin/torchrun") else "/usr/bin/torchrun not found (Debian python3-torch)"),
    ]


@pytest.mark.parametrize("launcher", ["ezpz launch", "mpiexec.mpich", "torchrun"])
def test_two_ranks_share_the_group_ezpz_run_joined(script, tmp_path, launcher):
    need_torch()
    name, prefix, env, missing = next(item for item in _launchers(2, tmp_path) if item[0] == launcher)
    if missing:
        cannot_run(missing)
    answer = _run([*prefix, sys.executable, "-m", "ezpz.run", str(script), "return"], tmp_path, env)
    assert answer.returncode == 0, answer.stdout + answer.stderr
    for rank in (0, 1):
        assert f"rank {rank}/2 sum 3 name __main__ argv ['return'] path0 True" in answer.stdout, answer.stdout
    assert answer.stdout.count("at exit: group initialized False") == 2, answer.stdout
