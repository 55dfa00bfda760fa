#include "tools/ixa/device_request.h"

#include <algorithm>
#include <iostream>
#include <string>
#include <utility>

#include "hw/device_fields.h"
#include "hw/op_profiles.h"
#include "tools/ixa/command_line.h"
#include "tools/ixa/query_server.h"

namespace ixa::cli {
namespace {

// Set before the first request (and before --jobs starts its threads);
// read-only afterwards.
std::vector<hw::Device>& UserDeviceTable() {
  static std::vector<hw::Device>* table = new std::vector<hw::Device>();
  return *table;
}

Error FieldTypeError(const hw::DeviceFieldDoc& f) {
  return Error::BadRequest(
      "device field '" + std::string(f.name) + "' must be " +
      (f.type == hw::DeviceFieldType::kInt ? "an " : "a ") +
      std::string(hw::DeviceFieldTypeName(f.type)));
}

// An integer of the JSON text (not a float, even 2.0), within int64.
std::optional<int64_t> JsonInteger(const Json& v) {
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  return std::nullopt;
}

// Sets field `f` of `d` from the JSON value `v` (types only: ranges are
// ValidateDevice's).
std::optional<Error> SetDeviceField(const hw::DeviceFieldDoc& f, const Json& v,
                                    hw::Device* d) {
  using FieldType = hw::DeviceFieldType;
  switch (f.type) {
    case FieldType::kString:
      if (!v.is_string()) return FieldTypeError(f);
      d->*f.string_member = v.get<std::string>();
      return std::nullopt;
    case FieldType::kInt: {
      std::optional<int64_t> i = JsonInteger(v);
      if (!i) return FieldTypeError(f);
      d->*f.int_member = *i;
      return std::nullopt;
    }
    case FieldType::kNumber:
      if (!v.is_number()) return FieldTypeError(f);
      d->*f.number_member = v.get<double>();
      return std::nullopt;
    case FieldType::kIntTriple: {
      if (!v.is_array() || v.size() != 3) return FieldTypeError(f);
      std::array<int64_t, 3> triple{};
      for (size_t k = 0; k < 3; ++k) {
        std::optional<int64_t> i = JsonInteger(v[k]);
        if (!i) return FieldTypeError(f);
        triple[k] = *i;
      }
      d->*f.triple_member = triple;
      return std::nullopt;
    }
    case FieldType::kGemmTable: {
      // {"bf16": [[batch, m, n, k, tflops], ...], ...}; the type pairs
      // and ranges are ValidateDevice's.
      if (!v.is_object()) return FieldTypeError(f);
      std::vector<hw::GemmTableEntry> table;
      for (const auto& [types, rows] : v.items()) {
        if (!rows.is_array()) return FieldTypeError(f);
        for (const Json& row : rows) {
          if (!row.is_array() || row.size() != 5 || !row[4].is_number()) {
            return Error::BadRequest(
                "device field 'gemm_table': each row of " +
                QuoteForMessage(types) +
                " must be [batch, m, n, k, tflops] (four integers and a "
                "number)");
          }
          hw::GemmTableEntry e;
          e.types = types;
          int64_t* dims[] = {&e.batch, &e.m, &e.n, &e.k};
          for (size_t k = 0; k < 4; ++k) {
            std::optional<int64_t> i = JsonInteger(row[k]);
            if (!i) {
              return Error::BadRequest(
                  "device field 'gemm_table': batch, m, n and k of a " +
                  QuoteForMessage(types) + " row must be integers");
            }
            *dims[k] = *i;
          }
          e.tflops = row[4].get<double>();
          table.push_back(std::move(e));
        }
      }
      d->*f.gemm_table_member = std::move(table);
      return std::nullopt;
    }
    case FieldType::kCapability: {
      // "9.0": major.minor, as XLA's device descriptions write it.
      if (!v.is_string()) return FieldTypeError(f);
      const std::string cc = v.get<std::string>();
      const size_t dot = cc.find('.');
      auto digits = [](std::string_view t) {
        return !t.empty() && t.size() <= 3 &&
               std::all_of(t.begin(), t.end(),
                           [](char c) { return c >= '0' && c <= '9'; });
      };
      if (dot == std::string::npos || !digits(cc.substr(0, dot)) ||
          !digits(cc.substr(dot + 1))) {
        return Error::BadRequest(
            "device field 'compute_capability' must be \"major.minor\", e.g. "
            "\"9.0\"; got " +
            QuoteForMessage(cc));
      }
      d->compute_capability_major = std::stoi(cc.substr(0, dot));
      d->compute_capability_minor = std::stoi(cc.substr(dot + 1));
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::string KnownDeviceNames() {
  std::string names;
  for (const hw::Device& d : UserDevices()) {
    names += (names.empty() ? "" : ", ") + d.name;
  }
  for (const hw::Device& d : hw::BuiltinDevices()) {
    names += (names.empty() ? "" : ", ") + d.name;
  }
  return names;
}

Error UnknownDeviceError(const std::string& name) {
  return Error::Invalid("unknown device " + QuoteForMessage(name) +
                        "; known: " + KnownDeviceNames() +
                        " (`ixa devices`; --devices FILE adds more)");
}

}  // namespace

void SetUserDevices(std::vector<hw::Device> devices) {
  UserDeviceTable() = std::move(devices);
}

std::span<const hw::Device> UserDevices() { return UserDeviceTable(); }

std::optional<hw::Device> FindKnownDevice(std::string_view name) {
  for (const hw::Device& d : UserDevices()) {
    if (d.name == name) return d;
  }
  return hw::FindDevice(name);
}

Result<hw::Device> DeviceFromJson(const Json& j) {
  if (!j.is_object()) {
    return Error::BadRequest("a device must be a name or an object");
  }
  // A misspelled field would silently keep the default: refuse it.
  for (const auto& item : j.items()) {
    if (item.key() == "base" || hw::FindDeviceField(item.key())) continue;
    std::string known = "base";
    for (const hw::DeviceFieldDoc& f : hw::DeviceFieldDocs()) {
      known += ", " + std::string(f.name);
    }
    return Error::BadRequest(
        "unknown device field " + QuoteForMessage(item.key()) +
        "; a device object takes " + known + " (docs/protocol.md \"Devices\")");
  }
  hw::Device d;
  d.name = "custom";
  std::vector<std::string> adjusted;
  if (j.contains("base")) {
    const Json& base = j.at("base");
    if (!base.is_string()) {
      return Error::BadRequest(
          "device field 'base' must be the name of a known device");
    }
    std::optional<hw::Device> found = FindKnownDevice(base.get<std::string>());
    if (!found) return UnknownDeviceError(base.get<std::string>());
    d = *found;
  }
  for (const auto& item : j.items()) {
    if (item.key() == "base") continue;
    const hw::DeviceFieldDoc& f = *hw::FindDeviceField(item.key());
    if (std::optional<Error> e = SetDeviceField(f, item.value(), &d)) {
      return *e;
    }
    if (item.key() != "name" && item.key() != "notes") {
      adjusted.push_back(item.key());
    }
  }
  if (j.contains("base") && !adjusted.empty()) {
    // A known device with other numbers is no longer that device: its name
    // and notes say so, unless the object gives its own.
    if (!j.contains("name")) d.name += "-custom";
    if (!j.contains("notes")) {
      std::string list;
      for (const std::string& a : adjusted) {
        list += (list.empty() ? "" : ", ") + a;
      }
      d.notes +=
          (d.notes.empty() ? "" : "; ") + std::string("adjusted: ") + list;
    }
  }
  return hw::ValidateDevice(std::move(d));
}

Result<hw::Device> GetDevice(const Json& req) {
  if (!Has(req, "device")) return *hw::FindDevice("h100");
  const Json& j = req.at("device");
  if (j.is_string()) {
    std::optional<hw::Device> d = FindKnownDevice(j.get<std::string>());
    if (!d) return UnknownDeviceError(j.get<std::string>());
    return *d;
  }
  if (!j.is_object()) {
    return Error::BadRequest("field 'device' must be a name or an object");
  }
  return DeviceFromJson(j);
}

Json DeviceJson(const hw::Device& d) {
  using FieldType = hw::DeviceFieldType;
  Json out = Json::object();
  for (const hw::DeviceFieldDoc& f : hw::DeviceFieldDocs()) {
    const std::string name(f.name);
    switch (f.type) {
      case FieldType::kString:
        out[name] = d.*f.string_member;
        break;
      case FieldType::kInt:
        out[name] = d.*f.int_member;
        break;
      case FieldType::kNumber:
        out[name] = d.*f.number_member;
        break;
      case FieldType::kIntTriple:
        out[name] = d.*f.triple_member;
        break;
      case FieldType::kGemmTable: {
        Json table = Json::object();
        for (const hw::GemmTableEntry& e : d.*f.gemm_table_member) {
          table[e.types].push_back(
              Json::array({e.batch, e.m, e.n, e.k, e.tflops}));
        }
        out[name] = std::move(table);
        break;
      }
      case FieldType::kCapability:
        out[name] = std::to_string(d.compute_capability_major) + "." +
                    std::to_string(d.compute_capability_minor);
        break;
    }
  }
  // The table the cost model uses (the same one when read back).
  out["op_profile"] = hw::OpProfileKeyFor(d);
  return out;
}

Result<std::vector<hw::Device>> ReadDeviceTable(std::string_view text) {
  // The entries, each with the line it starts on (0 inside a JSON list).
  std::vector<std::pair<Json, int>> entries;
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '[') {
    Json list;
    try {
      list = Json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      return Error::Parse(
          "the device table is not JSON: " + ClipMessage(e.what()), 1, 1);
    }
    for (Json& entry : list) entries.emplace_back(std::move(entry), 0);
  } else {
    int number = 0;
    size_t start = 0;
    while (start <= text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = text.substr(start, end - start);
      ++number;
      start = end + 1;
      if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
      try {
        entries.emplace_back(Json::parse(line), number);
      } catch (const nlohmann::json::parse_error&) {
        return Error::Parse(
            "a device table is a JSON list of device objects or one object "
            "per line; this line is not JSON",
            number, 1);
      }
      if (end == text.size()) break;
    }
  }
  std::vector<hw::Device> devices;
  // Later entries may start from earlier ones: install them as they come,
  // then put the previous table back.
  std::vector<hw::Device> previous = std::move(UserDeviceTable());
  auto restore = [&] { UserDeviceTable() = previous; };
  UserDeviceTable().clear();
  for (size_t k = 0; k < entries.size(); ++k) {
    const auto& [entry, line] = entries[k];
    auto at = [&, line = line](Error e) {
      e.message =
          "device " + std::to_string(k + 1) + " of the table: " + e.message;
      e.line = line;
      e.column = line > 0 ? 1 : 0;
      restore();
      return e;
    };
    if (!entry.is_object() || !entry.contains("name") ||
        !entry.at("name").is_string()) {
      return at(Error::BadRequest(
          "each device of a table is an object with a \"name\""));
    }
    const std::string name = entry.at("name").get<std::string>();
    if (FindKnownDevice(name)) {
      return at(Error::Invalid(
          "the name " + QuoteForMessage(name) +
          " is taken (a built-in device or an earlier entry): give it "
          "another, with \"base\": \"" +
          name + "\" to start from the known one"));
    }
    Result<hw::Device> device = DeviceFromJson(entry);
    if (!device.ok()) return at(device.error());
    UserDeviceTable().push_back(*device);
    devices.push_back(*std::move(device));
  }
  restore();
  return devices;
}

bool LoadDevicesFlag(std::string_view command, const std::string& path,
                     int* exit_code) {
  std::string text, reason;
  if (!ReadInput(path, &text, &reason)) {
    std::cerr << "ixa " << command << ": cannot read --devices '" << path
              << "': " << reason << "\n";
    *exit_code = kExitNoInput;
    return false;
  }
  Result<std::vector<hw::Device>> table = ReadDeviceTable(text);
  if (!table.ok()) {
    std::cerr << CompilerStyleError(path == "-" ? "<stdin>" : path,
                                    table.error())
              << "\n";
    *exit_code = kExitSomeFailed;
    return false;
  }
  SetUserDevices(*std::move(table));
  return true;
}

}  // namespace ixa::cli
