#include "predict/kernel_dataset.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "core/csv.hpp"
#include "core/json_fields.hpp"
#include "core/json_file.hpp"
#include "core/parse.hpp"
#include "jouleprof/channel.hpp"

namespace jouleprof::predict {
namespace {

using nlohmann::json;
using KernelKey = std::pair<std::string, std::string>;  // (type, ID)

// The config keys each feature set needs; pool strides are "POOL_STRIDES" in nn-Meter's pooling
// kernels and "STRIDES" elsewhere.
Result<KernelConfig> config_from_json(const JsonFields& f, const std::string& where,
                                      const std::string& type, const std::string& id,
                                      const json& config) {
  KernelConfig k;
  k.name = id;
  k.op = type;
  switch (feature_set_of(predictor_type(type))) {
    case FeatureSet::kConv:
    case FeatureSet::kDwconv:
    case FeatureSet::kPool: {
      JP_TRY(k.hw, f.get<int>(config, "HW", where));
      JP_TRY(k.cin, f.get<int>(config, "CIN", where));
      if (feature_set_of(predictor_type(type)) == FeatureSet::kPool) {
        JP_TRY(k.cout, f.get_or<int>(config, "COUT", where, k.cin));  // pools keep C
      } else {
        JP_TRY(k.cout, f.get<int>(config, "COUT", where));
      }
      JP_TRY(k.kernel_size, f.get<int>(config, "KERNEL_SIZE", where));
      const bool pool_strides = JsonFields::find(config, "POOL_STRIDES") != nullptr;
      JP_TRY(k.stride, f.get<int>(config, pool_strides ? "POOL_STRIDES" : "STRIDES", where));
      break;
    }
    case FeatureSet::kFc: {
      JP_TRY(k.cin, f.get<int>(config, "CIN", where));
      JP_TRY(k.cout, f.get<int>(config, "COUT", where));
      break;
    }
    case FeatureSet::kAdd: {
      JP_TRY(k.hw, f.get<int>(config, "HW", where));
      JP_TRY(int cin1, f.get<int>(config, "CIN1", where));
      JP_TRY(int cin2, f.get<int>(config, "CIN2", where));
      k.input_channels = {cin1, cin2};
      k.cin = cin1;
      break;
    }
    case FeatureSet::kConcat: {
      JP_TRY(k.hw, f.get<int>(config, "HW", where));
      JP_TRY(const json* cins, f.array(config, "CINS", where));
      for (std::size_t i = 0; i < cins->size(); ++i) {
        JP_TRY(int cin,
               f.value<int>((*cins)[i], [&] { return fmt::format("{}.CINS[{}]", where, i); }));
        k.input_channels.push_back(cin);
      }
      break;
    }
    case FeatureSet::kOthers: {
      JP_TRY(k.hw, f.get<int>(config, "HW", where));
      JP_TRY(k.cin, f.get<int>(config, "CIN", where));
      JP_TRY(k.cout, f.get_or<int>(config, "COUT", where, 0));
      break;
    }
  }
  return k;
}

// nn-Meter writes energies as numbers or as numeric strings.
Result<double> energy_value(const JsonFields& f, const std::string& where, const json& entry) {
  JP_TRY(const json* v, f.member(entry, "energy", where));
  const std::string at = where + ".energy";
  JP_TRY(const std::string text, f.text(*v, at));
  const std::optional<double> mj = to_number(text);
  if (!mj) return f.bad_value(at, *v, "is not a number");
  if (!(*mj > 0.0)) return f.bad_value(at, *v, "is not a positive number of mJ");
  return *mj;
}

struct JsonKernels {
  std::map<KernelKey, KernelConfig> configs;
  std::map<KernelKey, std::pair<double, std::string>> energies;  // mJ, file
};

Status read_kernel_json(const std::filesystem::path& path, JsonKernels& out) {
  JP_TRY(json doc, read_json_file(path.string(), "kernel JSON file"));
  const std::string file = path.string();
  const JsonFields f(file);
  JP_TRY(const json* types, f.object(doc, "(document)"));
  for (const auto& [type, entries] : types->items()) {
    JP_TRY(const json* ids, f.object(entries, type));
    for (const auto& [id, entry] : ids->items()) {
      const std::string where = type + "." + id;
      JP_TRY(const json* e, f.object(entry, where));
      if (const json* config = JsonFields::find(*e, "config")) {
        JP_TRY(KernelConfig k, config_from_json(f, where + ".config", type, id, *config));
        out.configs.emplace(KernelKey{type, id}, std::move(k));
      } else if (JsonFields::find(*e, "energy")) {
        JP_TRY(double mj, energy_value(f, where, *e));
        out.energies.emplace(KernelKey{type, id}, std::pair{mj, file});
      } else {
        return f.error(where, "has neither a config nor an energy");
      }
    }
  }
  return Status::Ok();
}

Result<std::vector<KernelSample>> read_kernel_csv(const std::filesystem::path& path) {
  JP_TRY(CsvTable table, read_csv_table(path));
  JP_TRY(std::size_t id_col, table.require_column("id"));
  JP_TRY(std::size_t op_col, table.require_column("OP"));
  JP_TRY(std::size_t energy_col, table.require_column("energy_mJ"));
  JP_TRY(std::size_t hw_col, table.require_column("HW"));
  JP_TRY(std::size_t ks_col, table.require_column("KERNEL_SIZE"));
  JP_TRY(std::size_t stride_col, table.require_column("STRIDES"));
  JP_TRY(std::size_t cin_col, table.require_column("CIN"));
  JP_TRY(std::size_t cout_col, table.require_column("COUT"));
  const std::optional<std::size_t> provenance_col = table.column("energy_provenance");
  std::vector<KernelSample> samples;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const auto& row = table.rows[r];
    const std::string where = fmt::format("{}: line {}", table.path, table.line_numbers[r]);
    auto integer = [&](std::size_t col) -> Result<int> {
      auto v = to_number(row[col]);
      // Range first: converting a double beyond int (2.2e23, found by fuzzing) is undefined.
      if (!v || !(*v >= std::numeric_limits<int>::min() && *v <= std::numeric_limits<int>::max()) ||
          *v != std::floor(*v)) {
        return invalid_input(where, table.header[col], row[col], "not an integer");
      }
      return static_cast<int>(*v);
    };
    KernelSample s;
    s.config.name = row[id_col];
    s.config.op = row[op_col];
    auto energy = to_number(row[energy_col]);
    if (!energy) return invalid_input(where, "energy_mJ", row[energy_col], "not a number");
    if (*energy <= 0.0)
      return invalid_input(where, "energy_mJ", row[energy_col], "must be positive (mJ)");
    s.energy_mj = *energy;
    JP_TRY(s.config.hw, integer(hw_col));
    JP_TRY(s.config.kernel_size, integer(ks_col));
    JP_TRY(s.config.stride, integer(stride_col));
    JP_TRY(s.config.cin, integer(cin_col));
    JP_TRY(s.config.cout, integer(cout_col));
    if (feature_set_of(predictor_type(s.config.op)) == FeatureSet::kAdd) {
      s.config.input_channels = {s.config.cin, s.config.cin};
    }
    if (provenance_col) {
      s.provenance = row[*provenance_col];
      const std::string kind = s.provenance.substr(0, s.provenance.find(':'));
      if (!provenance_from_string(kind)) {
        return invalid_input(where, "energy_provenance", s.provenance,
                             "expected <provenance>:<source>, provenance one of measured, "
                             "interpolated, estimated, simulated, predicted, imported");
      }
    }
    s.source = table.path;
    samples.push_back(std::move(s));
  }
  return samples;
}

}  // namespace

Result<std::vector<KernelSample>> read_kernel_files(std::span<const std::filesystem::path> files) {
  std::vector<KernelSample> samples;
  JsonKernels json_kernels;
  for (const auto& path : files) {
    if (path.extension() == ".csv") {
      JP_TRY(auto rows, read_kernel_csv(path));
      samples.insert(samples.end(), rows.begin(), rows.end());
    } else {
      JP_RETURN_IF_ERROR(read_kernel_json(path, json_kernels));
    }
  }
  for (auto& [key, config] : json_kernels.configs) {
    auto energy = json_kernels.energies.find(key);
    if (energy == json_kernels.energies.end()) {
      return invalid_input(
          key.first + "/" + key.second, "energy", "",
          "the kernel has a config but no energy file entry (pass its energy file)");
    }
    KernelSample sample;
    sample.config = std::move(config);
    sample.energy_mj = energy->second.first;
    sample.source = energy->second.second;
    samples.push_back(std::move(sample));
  }
  for (const auto& [key, energy] : json_kernels.energies) {
    if (!json_kernels.configs.contains(key)) {
      return invalid_input(
          energy.second + ": " + key.first + "/" + key.second, "config", "",
          "the kernel has an energy but no config file entry (pass its config file)");
    }
  }
  return samples;
}

std::string sample_origin(const KernelSample& s) {
  return s.provenance.empty() ? s.source : fmt::format("{} [{}]", s.source, s.provenance);
}

std::string kernel_csv_header() {
  return "id,OP,energy_mJ,HW,KERNEL_SIZE,STRIDES,CIN,COUT,energy_provenance";
}

std::string kernel_csv_row(const KernelSample& s) {
  const KernelConfig& k = s.config;
  return fmt::format("{},{},{},{},{},{},{},{},{}", k.name, k.op, s.energy_mj, k.hw, k.kernel_size,
                     k.stride, k.cin, k.cout, s.provenance);
}

}  // namespace jouleprof::predict
