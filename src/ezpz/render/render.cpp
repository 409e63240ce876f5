// Script rendering through the Mustache templates (render/mustache.hpp). Templates only lay text out; quoting and
// decisions happen here.
#include "ezpz/render/render.hpp"

#include <algorithm>

#include "ezpz/render/mustache.hpp"
#include "ezpz/util/handoff_variables.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/variable_refs.hpp"
#include "ezpz/version.hpp"

namespace ezpz::core {
namespace {

// Shell-quotes values and remembers whether any of them holds a literal '$' or '`', which shellcheck
// would otherwise flag (SC2016) although keeping them literal is the point.
struct Quoter {
  bool literal_expansion = false;

  std::string operator()(const std::string& value) {
    std::string quoted = shell_quote(value);
    if (quoted != value && value.find_first_of("$`") != std::string::npos) literal_expansion = true;
    return quoted;
  }
  std::string operator()(const CommandWord& word) { return word.variable ? shell_word(word) : (*this)(word.text); }

  TemplateValue variables(const std::vector<std::pair<std::string, std::string>>& pairs) {
    std::vector<TemplateValue> items;
    for (const auto& [name, value] : pairs)
      items.push_back(TemplateValue::map({{"name", name}, {"value", (*this)(value)}}));
    return TemplateValue::list(std::move(items));
  }
  // Profile environment values: their $NAME references expand when the job runs, nothing else does.
  TemplateValue expanding_variables(const std::vector<std::pair<std::string, std::string>>& pairs) {
    std::vector<TemplateValue> items;
    for (const auto& [name, value] : pairs)
      items.push_back(TemplateValue::map(
          {{"name", name}, {"value", has_variable_refs(value) ? shell_quote_expanding(value) : (*this)(value)}}));
    return TemplateValue::list(std::move(items));
  }
  TemplateValue words(const std::vector<std::string>& values) {
    std::vector<TemplateValue> items;
    for (const auto& value : values) items.push_back((*this)(value));
    return TemplateValue::list(std::move(items));
  }
  // Words joined into one command, continued over lines at the given word indexes for readability.
  std::string command_line(const std::vector<CommandWord>& command, const std::vector<size_t>& breaks) {
    std::string line;
    for (size_t i = 0; i < command.size(); ++i) {
      if (i > 0) line += std::find(breaks.begin(), breaks.end(), i) != breaks.end() ? " \\\n    " : " ";
      line += (*this)(command[i]);
    }
    return line;
  }
};

// A relative workdir as "./DIR": bash's cd takes "-L" and "-P" as options and "-" as $OLDPWD (even
// after "--"), and looks a plain relative name up in $CDPATH first.
std::string workdir_path(const std::string& dir) {
  bool anchored = dir.empty() || dir.front() == '/' || starts_with(dir, "./") || starts_with(dir, "../");
  return anchored ? dir : "./" + dir;
}

std::string strip_trailing_newlines(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

// Puts the launch under `ezpz launch`'s supervisor when the spec asks for any of it (`options`). The
// local launcher is ezpz launch itself and takes the options before its closing "--"; any other
// launcher runs as the command of `ezpz launch --verbatim OPTIONS --`. `breaks` (line breaks of the
// shown command) move with the words.
void supervised_launch(const Launcher& launcher, const std::vector<std::string>& options,
                       std::vector<CommandWord>& launch, std::vector<size_t>& breaks) {
  if (options.empty()) return;
  bool local = launcher.kind == LauncherKind::local;
  std::vector<CommandWord> words;
  if (!local) words = {{k_env_bin, true}, {"launch", false}, {"--verbatim", false}};
  for (const auto& option : options) words.push_back({option, false});
  if (!local) words.push_back({"--", false});
  size_t at = local ? breaks.front() - 1 : 0;  // local: before the launcher's closing "--"
  launch.insert(launch.begin() + static_cast<long>(at), words.begin(), words.end());
  for (auto& line_break : breaks) line_break += words.size();
  if (!local) breaks.insert(breaks.begin(), words.size());
}

}  // namespace

std::vector<CommandWord> rank_command(const std::vector<CommandWord>& launcher, bool rank_wrapper,
                                      const std::vector<std::string>& program) {
  std::vector<CommandWord> words = launcher;
  if (rank_wrapper) {
    words.push_back({k_env_bin, true});
    words.push_back({"exec", false});
    words.push_back({"--", false});
  }
  for (const auto& word : program) words.push_back({word, false});
  return words;
}

Script render(const ResolvedJob& job, const Catalog& catalog, const std::string& ezpz_bin) {
  const JobSpec& spec = job.spec;
  const Scheduler& scheduler = *job.scheduler;
  const SystemProfile& profile = *job.profile;
  Quoter quote;

  std::string workdir;
  if (spec.workdir) {
    workdir = quote(workdir_path(spec.workdir->value));
  } else if (!scheduler.workdir_variable.empty()) {
    workdir = "\"$" + scheduler.workdir_variable + "\"";
  }

  // Only a job that ends at its walltime has an end time to export.
  bool has_walltime = scheduler.ends_at_walltime();
  std::vector<std::pair<std::string, std::string>> handoff = handoff_env(job);
  std::vector<std::pair<std::string, std::string>> backend_env;
  for (const auto& [name, value] : job.backend_env) backend_env.emplace_back(name, value.value);
  std::vector<std::pair<std::string, std::string>> env;
  for (const auto& [name, value] : spec.env) env.emplace_back(name, value.value);

  std::vector<std::string> modules = spec.modules ? spec.modules->value : std::vector<std::string>{};
  std::string setup = spec.setup ? strip_trailing_newlines(spec.setup->value) : std::string();

  std::vector<TemplateValue> stage;
  for (const auto& command : job.stage_commands) {
    stage.push_back(TemplateValue::map({
        {"src", printable(command.src)},  // shown in a comment line: no line breaks may reach it
        {"command", quote.command_line(command.words, {command.launcher_words})},
        {"failure", quote("ezpz: staging " + command.src + " to " + command.dest + " failed; not launching")},
    }));
  }

  std::vector<CommandWord> launch = rank_command(job.launcher, profile.launcher.rank_wrapper, spec.run->value);
  std::vector<size_t> breaks = {job.launcher.size()};
  if (profile.launcher.rank_wrapper) breaks.push_back(job.launcher.size() + 3);
  supervised_launch(profile.launcher, supervise_options(spec), launch, breaks);

  TemplateValue context = TemplateValue::map({
      {"shell", profile.shell},
      {"version", std::string(k_version)},
      {"system", profile.name},
      {"hash", job.hash},
      {"directive_prefix", scheduler.directive_prefix},
      {"workdir", workdir},
      {"has_modules", !modules.empty() || !profile.module_use.empty()},
      {"module_use", quote.words(profile.module_use)},
      {"modules", quote.words(modules)},
      {"ezpz_bin", quote(ezpz_bin)},
      {"handoff", quote.variables(handoff)},
      {"has_backend_env", !backend_env.empty()},
      {"backend_env", quote.expanding_variables(backend_env)},
      {"has_env", !env.empty()},
      {"env", quote.variables(env)},
      {"has_setup", !setup.empty()},
      {"setup", setup},
      {"stage", TemplateValue::list(std::move(stage))},
      {"end_time", has_walltime ? std::to_string(spec.walltime->value) : std::string()},
      {"nodes", std::to_string(spec.nodes->value)},
      {"ranks_per_node", std::to_string(spec.ranks_per_node->value)},
      {"total_ranks", std::to_string(job.total_ranks.value)},
      {"launch", quote.command_line(launch, breaks)},
  });
  // Checks that do not apply to generated scripts: literal '$' in quoted values (SC2016), and files
  // that `setup` sources, which exist only on the compute nodes (SC1091).
  std::vector<std::string> not_applicable;
  if (quote.literal_expansion) not_applicable.push_back("SC2016");
  if (!setup.empty()) not_applicable.push_back("SC1091");
  context["shellcheck_disable"] = join(not_applicable, ",");
  // Each local rank's device beside its cpus, where the profile says which socket a device is on.
  std::vector<TemplateValue> rank_devices;
  for (const auto& rank : job.rank_devices) rank_devices.emplace_back(rank.describe());
  context["rank_devices"] = TemplateValue::list(std::move(rank_devices));
  std::vector<TemplateValue> directives;
  for (const auto& line : job.directives) directives.emplace_back(line);  // validated, never quoted
  context["directives"] = TemplateValue::list(std::move(directives));

  std::string text =
      render_template(scheduler.template_name + ".sh.mustache", catalog.template_text(scheduler.template_name), context,
                      {{"body", catalog.template_text("job_body")}});
  return Script{std::move(text), scheduler.submit};
}

}  // namespace ezpz::core
