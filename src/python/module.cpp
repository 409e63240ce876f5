// ezpz._ezpz: the public C++ API (src/ezpz/*.hpp) for Python. The Python package (ezpz/__init__.py)
// turns paths, YAML text and dicts into specs and shapes the results; nothing here imports torch.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <mutex>

#include "ezpz/ezpz.hpp"

namespace py = pybind11;

namespace {

// The catalog of the standard search path, built on first use and shared by every call.
const ezpz::Catalog& default_catalog() {
  static std::once_flag once;
  static std::unique_ptr<ezpz::Catalog> catalog;
  std::call_once(once, [] { catalog = std::make_unique<ezpz::Catalog>(); });
  return *catalog;
}

// Python's None, bool, int, float, str, list/tuple and dict as a spec Value.
ezpz::Value to_value(const py::handle& object) {
  if (object.is_none()) return {};
  if (py::isinstance<py::bool_>(object)) return object.cast<bool>();
  if (py::isinstance<py::int_>(object)) return object.cast<long long>();
  if (py::isinstance<py::float_>(object)) return object.cast<double>();
  if (py::isinstance<py::str>(object)) return object.cast<std::string>();
  if (py::isinstance<py::list>(object) || py::isinstance<py::tuple>(object)) {
    ezpz::Value list = ezpz::Value::list();
    for (const auto& item : object) list.push_back(to_value(item));
    return list;
  }
  if (py::isinstance<py::dict>(object)) {
    ezpz::Value map = ezpz::Value::map();
    for (const auto& [key, item] : object.cast<py::dict>()) map.set(py::str(key).cast<std::string>(), to_value(item));
    return map;
  }
  throw py::type_error("a job spec value must be None, bool, int, float, str, list or dict, not " +
                       std::string(py::str(object.get_type().attr("__name__"))));
}

// A ProcessRunner that calls a Python function (argv: list[str], cwd: str) -> (exit_code, out, err).
class PythonRunner : public ezpz::ProcessRunner {
 public:
  explicit PythonRunner(py::function run) : m_run(std::move(run)) {}
  ezpz::ProcessResult run(const std::vector<std::string>& argv, const std::string& cwd) override {
    py::gil_scoped_acquire gil;
    py::tuple answer = m_run(argv, cwd);
    ezpz::ProcessResult result;
    result.exit_code = answer[0].cast<int>();
    result.out = answer[1].cast<std::string>();
    result.err = answer[2].cast<std::string>();
    return result;
  }

 private:
  py::function m_run;
};

// The caller's runner, or real processes.
std::unique_ptr<ezpz::ProcessRunner> runner_for(const py::object& run) {
  if (run.is_none()) return ezpz::make_process_runner();
  return std::make_unique<PythonRunner>(run.cast<py::function>());
}

py::dict rank_info_dict(const ezpz::RankInfo& rank) {
  py::dict out;
  out["rank"] = rank.rank;
  out["world_size"] = rank.world_size;
  out["local_rank"] = rank.local_rank;
  out["local_world_size"] = rank.local_world_size;
  out["node_rank"] = rank.node_rank;
  out["launcher"] = rank.launcher;
  out["variables"] = rank.variables;
  return out;
}

ezpz::ResolveOptions options_from(const std::string& system, const std::vector<std::string>& set,
                                  const std::map<std::string, std::string>& env, bool process_env) {
  ezpz::ResolveOptions options;
  options.system = system;
  options.set = set;
  options.env = env;
  options.process_env = process_env;
  options.detect = true;
  return options;
}

}  // namespace

PYBIND11_MODULE(_ezpz, m) {
  m.doc() = "ezpz's C++ library (use the ezpz package, not this module)";
  m.def("version", [] { return std::string(ezpz::version()); });

  py::class_<ezpz::Diagnostic>(m, "Diagnostic", "One problem: where it is, what it is, and how to fix it.")
      .def_readonly("where", &ezpz::Diagnostic::where)
      .def_readonly("file", &ezpz::Diagnostic::file)
      .def_readonly("line", &ezpz::Diagnostic::line)
      .def_readonly("column", &ezpz::Diagnostic::column)
      .def_readonly("message", &ezpz::Diagnostic::message)
      .def_readonly("hint", &ezpz::Diagnostic::hint)
      .def_readonly("warning", &ezpz::Diagnostic::warning)
      .def_readonly("text", &ezpz::Diagnostic::text)
      .def("__repr__",
           [](const ezpz::Diagnostic& d) {
             return "<ezpz.Diagnostic " + (d.where.empty() ? std::string() : d.where + ": ") +
                    (d.warning ? "warning: " : "error: ") + d.message + ">";
           })
      .def("__str__", [](const ezpz::Diagnostic& d) { return d.text; });

  // ezpz.Error(message, diagnostics): raised for every problem the caller can fix.
  static py::exception<ezpz::Error> error(m, "Error", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr pointer) {
    try {
      if (pointer) std::rethrow_exception(pointer);
    } catch (const ezpz::Error& e) {
      py::object type = py::reinterpret_borrow<py::object>(error.ptr());
      py::object instance = type(py::str(e.what()));
      instance.attr("diagnostics") = py::cast(e.diagnostics());
      PyErr_SetObject(error.ptr(), instance.ptr());
    }
  });

  py::class_<ezpz::Spec>(m, "Spec",
                         "A job spec as written (use ezpz.render/resolve/validate with a path, text or dict).")
      .def_static("from_file", &ezpz::Spec::from_file, py::arg("path"))
      .def_static("from_text", &ezpz::Spec::from_text, py::arg("yaml"), py::arg("name") = "<text>")
      .def_static(
          "from_values",
          [](const py::dict& values, const std::string& name) {
            return ezpz::Spec::from_values(to_value(values), name);
          },
          py::arg("values"), py::arg("name") = "<dict>");

  m.def("systems", [] {
    std::vector<py::dict> out;
    for (const auto& system : default_catalog().systems()) {
      py::dict item;
      item["name"] = system.name;
      item["description"] = system.description;
      item["scheduler"] = system.scheduler;
      item["path"] = system.path;
      out.push_back(item);
    }
    return out;
  });

  m.def(
      "render",
      [](const ezpz::Spec& spec, const std::string& system, const std::vector<std::string>& set,
         const std::map<std::string, std::string>& env, bool process_env, const std::string& ezpz_bin) {
        ezpz::Job job = ezpz::resolve(default_catalog(), spec, options_from(system, set, env, process_env));
        return ezpz::render(job, ezpz_bin).text;
      },
      py::arg("spec"), py::arg("system"), py::arg("set"), py::arg("env"), py::arg("process_env"), py::arg("ezpz_bin"));

  m.def(
      "resolve",
      [](const ezpz::Spec& spec, const std::string& system, const std::vector<std::string>& set,
         const std::map<std::string, std::string>& env, bool process_env, bool with_origins) {
        ezpz::Job job = ezpz::resolve(default_catalog(), spec, options_from(system, set, env, process_env));
        return job.to_json(with_origins);
      },
      py::arg("spec"), py::arg("system"), py::arg("set"), py::arg("env"), py::arg("process_env"),
      py::arg("with_origins"));

  m.def(
      "validate",
      [](const ezpz::Spec& spec, const std::string& system, const std::vector<std::string>& set,
         const std::map<std::string, std::string>& env, bool process_env) {
        return ezpz::validate(default_catalog(), spec, options_from(system, set, env, process_env));
      },
      py::arg("spec"), py::arg("system"), py::arg("set"), py::arg("env"), py::arg("process_env"));

  m.def(
      "submit",
      [](const ezpz::Spec& spec, const std::string& system, const std::vector<std::string>& set,
         const std::map<std::string, std::string>& env, bool process_env, const std::string& ezpz_bin,
         const std::string& records_dir, const std::string& submit_dir, bool hold, const py::object& run) {
        ezpz::Job job = ezpz::resolve(default_catalog(), spec, options_from(system, set, env, process_env));
        ezpz::Script script = ezpz::render(job, ezpz_bin);
        auto runner = runner_for(run);
        ezpz::Submission submission = ezpz::submit(job, script, *runner, {records_dir, submit_dir, hold});
        py::dict out;
        out["job_id"] = submission.job_id;
        out["record_dir"] = submission.record_dir;
        out["script"] = submission.script;
        out["system"] = job.system();
        return out;
      },
      py::arg("spec"), py::arg("system"), py::arg("set"), py::arg("env"), py::arg("process_env"), py::arg("ezpz_bin"),
      py::arg("records_dir"), py::arg("submit_dir"), py::arg("hold"), py::arg("run"));

  m.def(
      "status",
      [](const std::string& job_id, const std::string& records_dir, const std::string& system, const py::object& run) {
        auto runner = runner_for(run);
        ezpz::JobStatus status = ezpz::status(default_catalog(), {job_id, records_dir, system}, *runner);
        py::dict out;
        out["job_id"] = status.job_id;
        out["state"] = status.state;
        out["done"] = status.done;
        out["exit_code"] = status.exit_code ? py::object(py::int_(*status.exit_code)) : py::object(py::none());
        out["scheduler_state"] = status.scheduler_state;
        out["detail"] = status.detail;
        return out;
      },
      py::arg("job_id"), py::arg("records_dir"), py::arg("system"), py::arg("run"));

  m.def(
      "cancel",
      [](const std::string& job_id, const std::string& records_dir, const std::string& system, const py::object& run) {
        auto runner = runner_for(run);
        return ezpz::cancel(default_catalog(), {job_id, records_dir, system}, *runner);
      },
      py::arg("job_id"), py::arg("records_dir"), py::arg("system"), py::arg("run"));

  m.def(
      "discover_rank",
      [](const std::map<std::string, std::string>& env) { return rank_info_dict(ezpz::discover_rank(env)); },
      py::arg("env"));

  m.def(
      "rank_setup",
      [](const std::map<std::string, std::string>& env, const std::string& hostname, const std::string& device_root) {
        ezpz::RankSetup setup = ezpz::rank_setup(default_catalog(), env, hostname, device_root);
        py::dict out = rank_info_dict(setup.rank);
        out["system"] = setup.system;
        out["device"] = setup.device;
        out["backend"] = setup.backend;
        out["master_addr"] = setup.master_addr;
        out["master_port"] = setup.master_port;
        out["nodes"] = setup.nodes;
        out["exports"] = setup.exports;
        out["notes"] = setup.notes;
        return out;
      },
      py::arg("env"), py::arg("hostname") = "", py::arg("device_root") = "/");
}
