"""pytest for the ezpz Python module's job API (src/python): specs as paths, text and dicts, located
errors as data, explain, systems, and submit/status/cancel against the strict fake PBS and, with
EZPZ_SLURM_TEST=1 inside the test cluster's environment (ctest slurm.python_api), the real Slurm.

    PYTHONPATH=build/python /usr/bin/python3 -m pytest tests/python/test_api.py
"""
import os
import pathlib
import subprocess
import sys
import time

import pytest

import ezpz

HERE = pathlib.Path(__file__).resolve().parent
FAKE_PBS = HERE.parent / "fake_pbs"

LOCAL = {"system": "local", "nodes": 1, "walltime": "5m", "run": ["python3", "-c", "print(1)"]}

AURORA = {
    "system": "aurora",
    "account": "MyProject",
    "nodes": 2,
    "walltime": "30m",
    "filesystems": ["home", "flare"],
    "run": ["python3", "train.py"],
}


def test_import_does_not_import_torch():
    code = "import sys, ezpz; ezpz.get_rank(); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_setup_torch_keeps_the_users_device_and_says_when_torch_cannot_use_it():
    # TORCH_DEVICE set by the user wins over the cpu this machine would give; Debian's torch has no XPU.
    code = "import ezpz; ezpz.setup_torch()"
    env = {**os.environ, "TORCH_DEVICE": "xpu:0", "EZPZ_SYSTEM": "local"}
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "PMI_RANK", "OMPI_COMM_WORLD_RANK"):
        env.pop(name, None)
    answer = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert answer.returncode != 0
    assert "this rank's device is xpu:0" in answer.stderr
    assert "cannot use xpu devices" in answer.stderr


def test_setup_torch_alone_needs_no_rendezvous():
    # One process with no launcher: rank 0 of 1, gloo on cpu, an in-memory store. A MASTER_ADDR that
    # does not resolve proves nothing was looked up or connected to.
    code = ("import ezpz, torch.distributed as dist; r = ezpz.setup_torch(); "
            "print(r, dist.get_rank(), dist.get_world_size(), dist.get_backend(), ezpz.get_torch_device(), "
            "ezpz.get_local_rank()); ezpz.cleanup(); print(dist.is_initialized())")
    env = {**os.environ, "EZPZ_SYSTEM": "local", "MASTER_ADDR": "no-such-host.invalid"}
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "PMI_RANK", "OMPI_COMM_WORLD_RANK",
                 "TORCH_DEVICE", "TORCH_BACKEND", "MASTER_PORT", "SLURM_PROCID", "PALS_RANKID"):
        env.pop(name, None)
    answer = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.split() == ["0", "0", "1", "gloo", "cpu", "0", "False"], answer.stdout


def test_version_is_the_library_version():
    assert ezpz.version() == ezpz.__version__
    assert ezpz.version().count(".") == 2


def test_systems_lists_every_shipped_profile():
    names = [system["name"] for system in ezpz.systems()]
    assert names == sorted(names)
    for name in ("aurora", "polaris", "sunspot", "sophia", "crux", "frontier", "perlmutter", "slurm", "pbs", "local"):
        assert name in names
    aurora = next(system for system in ezpz.systems() if system["name"] == "aurora")
    assert aurora["scheduler"] == "pbs"


def test_render_from_dict_text_and_path_is_the_same_script(tmp_path):
    text = "\n".join(
        ["system: aurora", "account: MyProject", "nodes: 2", "walltime: 30m", "filesystems: [home, flare]",
         "run: [python3, train.py]", ""])
    path = tmp_path / "job.yaml"
    path.write_text(text)
    from_path = ezpz.render(str(path), env={})
    assert from_path.startswith("#!/bin/bash")
    assert "#PBS -A MyProject" in from_path
    assert "select=2" in from_path
    # The job name defaults from the file name; the others are not files.
    assert ezpz.render(text, env={}) == ezpz.render(AURORA, env={})
    assert ezpz.render(pathlib.Path(path), env={}) == from_path


def test_render_is_the_ezpz_command(tmp_path):
    path = tmp_path / "job.yaml"
    path.write_text("system: slurm\nnodes: 2\nwalltime: 10m\nrun: [python3, train.py]\n")
    ezpz_bin = os.environ.get("EZPZ_BIN_UNDER_TEST")
    if not ezpz_bin:
        pytest.skip("EZPZ_BIN_UNDER_TEST is not set")  # ctest sets it
    command = subprocess.run([ezpz_bin, "render", str(path)], capture_output=True, text=True, check=True,
                             env={**os.environ, "EZPZ_BIN": ""})
    assert ezpz.render(path, ezpz_bin=ezpz_bin) == command.stdout


def test_overrides_system_and_set():
    script = ezpz.render(AURORA, set={"nodes": 4, "queue": "debug-scaling", "env": {"HF_HOME": "/tmp/hf"}}, env={})
    assert "select=4" in script
    assert "HF_HOME=/tmp/hf" in script
    with pytest.raises(ezpz.Error) as raised:
        ezpz.render(AURORA, set={"nodes": 4}, env={})
    assert raised.value.diagnostics[0].where == "set nodes=4"
    assert "queues that fit" in raised.value.diagnostics[0].hint
    polaris = ezpz.render(AURORA, system="polaris", set=["filesystems=[home, eagle]"], env={})
    assert "for system 'polaris'" in polaris


def test_set_as_one_string_and_none():
    assert ezpz.resolve(AURORA, set="nodes=1", env={})["nodes"] == 1
    with pytest.raises(TypeError):
        ezpz.resolve(AURORA, set={"queue": None}, env={})


def test_resolve_and_explain():
    values = ezpz.resolve(AURORA, env={})
    assert values["nodes"] == 2
    assert values["system"] == "aurora"
    explained = ezpz.resolve(AURORA, set={"nodes": 3}, env={"EZPZ_QUEUE": "debug-scaling"}, explain=True)
    assert explained["nodes"] == {"value": 3, "kind": "cli", "origin": "set nodes=3"}
    assert explained["queue"]["value"] == "debug-scaling"
    assert explained["queue"]["kind"] == "env"
    assert explained["account"] == {"value": "MyProject", "kind": "spec", "origin": "spec <dict> account=MyProject"}


def test_validate_returns_located_errors_as_data(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("system: aurora\nnodez: 2\nwalltime: 99h\nrun: [python3, train.py]\n")
    problems = ezpz.validate(str(path), env={})
    assert all(isinstance(problem, ezpz.Diagnostic) for problem in problems)
    unknown = next(problem for problem in problems if "nodez" in problem.message)
    assert (unknown.file, unknown.line, unknown.column) == (str(path), 2, 1)
    assert unknown.hint == "did you mean 'nodes'?"
    assert not unknown.warning
    assert unknown.text.startswith(f"ezpz: {path}:2:1: error: unknown key 'nodez'")
    assert any("account" in problem.message for problem in problems)
    assert ezpz.validate(AURORA, env={}) == [] or all(problem.warning for problem in ezpz.validate(AURORA, env={}))


def test_errors_raise_with_every_diagnostic():
    with pytest.raises(ezpz.Error) as raised:
        ezpz.render({"system": "aurora", "nodes": "two", "run": "python3 x.py"}, env={})
    problems = raised.value.diagnostics
    assert len(problems) >= 2
    nodes = next(problem for problem in problems if "'nodes'" in problem.message)
    assert nodes.where == "<dict> nodes=two"
    assert isinstance(raised.value, ValueError)
    with pytest.raises(ezpz.Error) as raised:
        ezpz.render("system: [unclosed\n", env={})
    assert raised.value.diagnostics[0].line >= 1
    with pytest.raises(ezpz.Error) as raised:
        ezpz.render("/nonexistent/job.yaml")
    assert "cannot" in raised.value.diagnostics[0].message or "no such" in raised.value.diagnostics[0].message


def test_spec_values_of_every_python_type():
    script = ezpz.render({"system": "local", "nodes": 1, "walltime": "5m", "run": ["python3", "-c", "print(1)"],
                          "env": {"ONE": 1, "HALF": 0.5, "YES": True}}, env={})
    assert "ONE=1" in script and "HALF=0.5" in script and "YES=true" in script
    with pytest.raises(TypeError):
        ezpz.render({"system": "local", "run": object()}, env={})


def test_dict_specs_get_the_checks_yaml_specs_get():
    # NUL and CR reached the script from a dict although a YAML file refuses them (docs/limits.md).
    for key, value in (("run", ["python3", "a\0b"]), ("env", {"A": "x\ry"}), ("setup", "echo\0"),
                       ("workdir", "/tmp/a\rb"), ("modules", ["x\0"])):
        spec = dict(LOCAL, **{key: value})
        for call in (ezpz.validate, ezpz.render):  # as for a YAML file: the spec cannot be read
            with pytest.raises(ezpz.Error) as raised:
                call(spec, env={})
            assert raised.value.diagnostics[0].where.startswith(f"<dict> {key}"), raised.value.diagnostics[0].where


def test_deep_or_self_referencing_values_raise_errors():
    # A 20,000-level dict and a dict inside itself crashed the interpreter.
    deep = {}
    node = deep
    for _ in range(20000):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(ezpz.Error, match="deeper"):
        ezpz.render(dict(LOCAL, env=deep), env={})
    nested = {"a": {}}
    for _ in range(70):
        nested = {"a": nested}
    with pytest.raises(ezpz.Error, match="deeper than 64 levels"):
        ezpz.render(dict(LOCAL, env=nested), env={})
    loop = {"A": "x"}
    loop["B"] = loop
    with pytest.raises(ezpz.Error, match="env.B"):
        ezpz.render(dict(LOCAL, env=loop), env={})
    items = ["python3"]
    items.append(items)
    with pytest.raises(ezpz.Error, match=r"run\[1\]"):
        ezpz.render(dict(LOCAL, run=items), env={})


def test_bad_values_name_their_key():
    # pybind11 once said "Unable to cast Python instance to C++ type" with no key named.
    with pytest.raises(ezpz.Error) as raised:
        ezpz.render(dict(LOCAL, nodes=10**100), env={})
    assert any(problem.where.startswith("<dict> nodes") for problem in raised.value.diagnostics), raised.value
    with pytest.raises(ezpz.Error, match="env.A"):
        ezpz.render(dict(LOCAL, env={"A": "\ud800"}), env={})
    with pytest.raises(TypeError, match="env.A"):
        ezpz.render(dict(LOCAL, env={"A": object()}), env={})
    with pytest.raises(TypeError, match="env"):
        ezpz.render(dict(LOCAL, env={1: "x"}), env={})


def test_a_runner_that_answers_wrongly_is_named(tmp_path):
    job = {"system": "slurm", "nodes": 1, "walltime": "5m", "run": "true"}
    for answer in ((0, None, ""), ("0", "4242\n", ""), (True, "4242\n", ""), (0, "4242\n"), None, 7):
        with pytest.raises(ezpz.Error, match="sbatch") as raised:
            ezpz.submit(job, env={}, records_dir=str(tmp_path), run=lambda argv, cwd, answer=answer: answer)
        assert "expected (exit_code, out, err)" in str(raised.value), (answer, str(raised.value))
    # What subprocess gives without text=True is taken as well.
    assert ezpz.submit(job, env={}, records_dir=str(tmp_path), run=lambda argv, cwd: (0, b"77\n", b""))["job_id"] == "77"


@pytest.fixture
def fake_pbs(tmp_path, monkeypatch):
    state = tmp_path / "pbs"
    state.mkdir()
    (state / "queues").write_text("debug 2 3600\n")
    monkeypatch.setenv("PATH", f"{FAKE_PBS}:{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_PBS_DIR", str(state))
    monkeypatch.setenv("FAKE_PBS_ALLOW_ROOT", "1")
    monkeypatch.delenv("FAKE_PBS_SERVER", raising=False)
    monkeypatch.delenv("EZPZ_SYSTEM", raising=False)
    return state


def test_submit_status_cancel_against_the_fake_pbs(fake_pbs, tmp_path):
    records = tmp_path / "records"
    job = ezpz.submit(AURORA, records_dir=str(records), submit_dir=str(tmp_path), env={}, hold=True)
    job_id = job["job_id"]
    assert job_id.endswith(".fakepbs-0001.hostmgmt.cm.example")
    assert pathlib.Path(job["script"]).read_text() == (fake_pbs / "jobs" / job_id / "script").read_text()
    assert ezpz.status(job_id, records_dir=str(records))["state"] == "held"
    (fake_pbs / "jobs" / job_id / "state").write_text("R\n")
    running = ezpz.status(job_id, records_dir=str(records))
    assert (running["state"], running["done"], running["exit_code"]) == ("running", False, None)
    ezpz.cancel(job_id, records_dir=str(records))
    assert ezpz.status(job_id, records_dir=str(records))["done"]


def test_a_failed_submission_keeps_the_record_and_says_why(fake_pbs, tmp_path):
    records = tmp_path / "records"
    calls = []

    def qsub_down(argv, cwd):
        calls.append(argv)
        return 1, "", "qsub: cannot connect to server fakepbs-0001\n"

    with pytest.raises(ezpz.Error) as raised:
        ezpz.submit(AURORA, records_dir=str(records), env={}, run=qsub_down)
    assert calls and calls[0][0] == "qsub"
    assert "cannot connect to server" in str(raised.value)
    assert any(records.rglob("job.sh"))


def test_the_runner_can_be_replaced(tmp_path):
    calls = []

    def sbatch(argv, cwd):
        calls.append((argv, cwd))
        return 0, "4242\n", ""

    job = ezpz.submit({"system": "slurm", "nodes": 1, "walltime": "5m", "run": "true"}, env={},
                      records_dir=str(tmp_path), submit_dir=str(tmp_path), run=sbatch)
    assert job["job_id"] == "4242"
    assert calls[0][0][0] == "sbatch"


@pytest.mark.parametrize("system, digits", [("slurm", 50000), ("pbs", 60000)])
def test_an_answer_longer_than_any_job_id_is_an_error(tmp_path, system, digits):
    # std::regex recursed once per digit: `ezpz api` died of SIGSEGV after the job was queued.
    def submit_command(argv, cwd):
        return 0, "7" * digits + "\n", ""

    with pytest.raises(ezpz.Error) as raised:
        ezpz.submit({"system": system, "nodes": 1, "walltime": "5m", "run": "true"}, env={},
                    records_dir=str(tmp_path), submit_dir=str(tmp_path), run=submit_command)
    assert f"({digits} bytes), is longer than any job id" in str(raised.value)
    assert any(tmp_path.rglob("job.sh"))


@pytest.mark.skipif(os.environ.get("EZPZ_SLURM_TEST") != "1", reason="needs the test Slurm cluster (ctest slurm.python_api)")
def test_submit_and_status_on_the_real_slurm(tmp_path):
    records = tmp_path / "records"
    job = ezpz.submit({"name": "ezpz-python-api", "system": "slurm", "queue": "debug", "nodes": 1, "walltime": "2m",
                       "run": ["/bin/sh", "-c", "exit 3"]}, records_dir=str(records), submit_dir=str(tmp_path), env={})
    job_id = job["job_id"]
    assert job_id.isdigit()
    deadline = time.time() + 120
    state = ezpz.status(job_id, records_dir=str(records))
    while not state["done"] and time.time() < deadline:
        time.sleep(0.5)
        state = ezpz.status(job_id, records_dir=str(records))
    assert (state["state"], state["exit_code"]) == ("failed", 3)
