// Shared-memory bank ops of the query protocol (docs/protocol.md,
// "Layouts"): bank_conflicts (the exact wavefronts of a shared access) and
// swizzle (the tile layout with the fewest).
#include "hw/bank_conflicts.h"
#include "hw/dtype.h"
#include "hw/swizzle_search.h"
#include "tools/ixa/device_request.h"
#include "tools/ixa/protocol.h"

namespace ixa::cli {

namespace {

Result<int64_t> BankOptionalInt(const Json& req, const char* field,
                                int64_t fallback, int64_t lo, int64_t hi) {
  if (!Has(req, field)) return fallback;
  IXA_ASSIGN_OR_RETURN(int64_t v, GetInt(req, field));
  if (v < lo || v > hi)
    return Error::Invalid(std::string(field) + " must be " +
                          std::to_string(lo) + " to " + std::to_string(hi));
  return v;
}

Json BankReportJson(const hw::BankConflictReport& r) {
  Json out{{"wavefronts", Json{{"worst", r.worst},
                               {"average", r.average},
                               {"total", r.total_wavefronts},
                               {"ideal", r.ideal_wavefronts}}},
           {"access_bytes", r.access_bytes},
           {"phases", r.phases},
           {"instances", r.instances},
           {"conflict_free", r.conflict_free},
           {"method", r.periodic ? "periodic" : "enumerated"},
           {"evaluated_lanes", r.evaluated_lanes}};
  Json periods = Json::array();
  for (const hw::VariablePeriod& p : r.periods) {
    periods.push_back(Json{{"variable", p.name},
                           {"size", p.size},
                           {"period", p.period},
                           {"shift_bytes", p.shift}});
  }
  out["periods"] = periods;
  if (r.counterexample) {
    const hw::BankCounterexample& c = *r.counterexample;
    Json loops = Json::object();
    for (size_t i = 0; i < c.loop_names.size(); ++i)
      loops[c.loop_names[i]] = c.loop_values[i];
    Json lanes = Json::array();
    for (const hw::BankLaneWord& lw : c.lanes)
      lanes.push_back(Json{{"lane", lw.lane}, {"word", lw.word}});
    out["counterexample"] = Json{{"warp", c.warp},
                                 {"loops", loops},
                                 {"phase", c.phase},
                                 {"bank", c.bank},
                                 {"wavefronts", c.wavefronts},
                                 {"lanes", lanes}};
  }
  return out;
}

Result<hw::BankModel> BankModelOfRequest(const Json& req) {
  IXA_ASSIGN_OR_RETURN(hw::Device device, GetDevice(req));
  return hw::BankModelOf(device);
}

// ------------------------------------------------------- bank_conflicts

Result<Json> BankConflictsOp(const Json& req, ExprContext& ctx) {
  hw::SharedAccess access;
  IXA_ASSIGN_OR_RETURN(access.map, GetMap(req, "map", ctx));
  IXA_ASSIGN_OR_RETURN(access.element_bytes, GetInt(req, "element_bytes"));
  IXA_ASSIGN_OR_RETURN(access.vector_width,
                       BankOptionalInt(req, "vector_width", 1, 1, 16));
  IXA_ASSIGN_OR_RETURN(int64_t thread_dim,
                       BankOptionalInt(req, "thread_dim", 0, 0, 1 << 20));
  access.thread_dim = static_cast<int>(thread_dim);
  IXA_ASSIGN_OR_RETURN(hw::BankModel model, BankModelOfRequest(req));
  IXA_ASSIGN_OR_RETURN(hw::BankConflictReport r,
                       hw::AnalyzeBankConflicts(access, model));
  return BankReportJson(r);
}

// -------------------------------------------------------------- swizzle

Json TileScoreJson(const hw::TileLayoutScore& s,
                   const hw::BankConflictReport& write,
                   const hw::BankConflictReport& read) {
  Json out{{"layout", hw::DescribeTileLayout(s.layout)},
           {"bytes", s.bytes},
           {"arithmetic", s.arithmetic},
           {"wavefronts", s.write_wavefronts + s.read_wavefronts},
           {"write", BankReportJson(write)},
           {"read", BankReportJson(read)}};
  switch (s.layout.kind) {
    case hw::TileLayoutKind::kRowMajor:
      out["kind"] = "row_major";
      break;
    case hw::TileLayoutKind::kPadded:
      out["kind"] = "padded";
      out["pad"] = s.layout.pad;
      break;
    case hw::TileLayoutKind::kRotated:
      out["kind"] = "rotated";
      out["rotation"] = s.layout.rotation;
      break;
    case hw::TileLayoutKind::kXor:
      out["kind"] = "xor";
      out["swizzle"] = Json::array(
          {s.layout.swizzle.b, s.layout.swizzle.m, s.layout.swizzle.s});
      break;
  }
  return out;
}

Result<Json> SwizzleOp(const Json& req, ExprContext& ctx) {
  hw::SwizzleRequest sr;
  IXA_ASSIGN_OR_RETURN(sr.shape, GetIntList(req, "shape"));
  IXA_ASSIGN_OR_RETURN(std::string dtype_name, GetString(req, "dtype"));
  auto dtype = hw::FindDType(dtype_name);
  if (!dtype)
    return Error::Invalid("unknown dtype '" + dtype_name +
                          "' (known: " + hw::KnownDTypeNames() + ")");
  auto bytes = hw::ByteSize(*dtype);
  if (!bytes)
    return Error::Invalid("a shared tile of sub-byte " + dtype->name +
                          " is not modelled");
  sr.element_bytes = *bytes;
  IXA_ASSIGN_OR_RETURN(sr.write.map, GetMap(req, "write", ctx));
  IXA_ASSIGN_OR_RETURN(sr.read.map, GetMap(req, "read", ctx));
  IXA_ASSIGN_OR_RETURN(sr.write.vector_width,
                       BankOptionalInt(req, "write_vector_width", 1, 1, 16));
  IXA_ASSIGN_OR_RETURN(sr.read.vector_width,
                       BankOptionalInt(req, "read_vector_width", 1, 1, 16));
  IXA_ASSIGN_OR_RETURN(sr.model, BankModelOfRequest(req));
  IXA_ASSIGN_OR_RETURN(hw::SwizzleAnswer a, hw::SynthesizeTileLayout(sr, &ctx));
  Json out;
  out["before"] = TileScoreJson(a.before, a.write_before, a.read_before);
  out["after"] = TileScoreJson(a.after, a.write_after, a.read_after);
  out["map"] = MapToString(a.map);
  if (a.bases) {
    Json bases = Json::object();
    for (size_t d = 0; d < a.bases->size(); ++d)
      bases["d" + std::to_string(d)] = (*a.bases)[d];
    out["bases"] = bases;
  } else {
    out["bases"] = nullptr;
  }
  out["candidates"] = a.candidates;
  return out;
}

}  // namespace

void RegisterBankOps(OpTable& table) {
  table["bank_conflicts"] = BankConflictsOp;
  table["swizzle"] = SwizzleOp;
}

}  // namespace ixa::cli
