// `ixa devices` and `ixa draw` (commands.h): the built-in device
// descriptions, and a layout rendered to SVG.
//
//   ixa draw --shape "f32[3,5]{1,0:T(2,2)}" [-o out.svg] [--cell PX]
//            [--no-memory] [--title TEXT]
//   ixa draw --thread-tile 16,4 [--subgroup-tile 2,1] [--batch-tile 2,4]
//            [--outer-tile 1,1] [--element-tile 1,4]
//            [--subgroup-strides 1,0] [--thread-strides 1,16]
//            [--subgroup-size N] [--num-subgroups N] [-o out.svg] ...
//
//   ixa draw --tile 32,32 --dtype f32 --write MAP --read MAP
//            [--write-vector N] [--read-vector N] [--access read|write] ...
//
// The nested form is chosen by --thread-tile, the shared-tile form (banks
// before and after the synthesized swizzle) by --tile. Omitted tiles are 1s;
// omitted strides are the compact row-major ones (last dim fastest) of their
// tiles.
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "core/text.h"
#include "hw/device.h"
#include "hw/dtype.h"
#include "hw/nested_layout.h"
#include "hw/svg.h"
#include "hw/swizzle_search.h"
#include "hw/xla_layout.h"
#include "tools/ixa/command_line.h"
#include "tools/ixa/commands.h"
#include "tools/ixa/device_request.h"
#include "tools/ixa/query_server.h"

namespace ixa::cli {
namespace {

const char kDevicesUsage[] =
    "usage: ixa devices [--json] [--devices FILE]\n"
    "\n"
    "Lists the device descriptions, which the `device` field of a request\n"
    "and `ixa emit --device` name: a table, or with --json one JSON object\n"
    "per line with every field (each line reads back as a `device` object,\n"
    "and a file of such lines is a --devices table).\n"
    "\n"
    "flags:\n"
    "  --json            JSON Lines instead of a table (also --json=true or\n"
    "                    --json=false)\n"
    "  --devices FILE    a user's devices (a JSON list of device objects, or\n"
    "                    one per line; docs/protocol.md \"Devices\"), listed\n"
    "                    first\n"
    "  -h, --help        print this help\n"
    "\n"
    "exit codes:\n"
    "  0   the list was printed\n"
    "  1   the --devices table is not valid\n"
    "  64  usage error: unknown flag, an argument, a bad --json value\n"
    "  66  the --devices table cannot be read\n"
    "  70  internal error\n"
    "  73  standard output cannot be written\n";

constexpr FlagSpec kDevicesFlags[] = {{"--json", "", false}, {"--devices"}};

const char kDrawUsage[] =
    "usage: ixa draw --shape SHAPE [--cell PX] [--no-memory] [--title TEXT]\n"
    "                [-o FILE]\n"
    "       ixa draw --thread-tile T,.. [--subgroup-tile T,..]\n"
    "                [--batch-tile T,..] [--outer-tile T,..]\n"
    "                [--element-tile T,..] [--subgroup-strides S,..]\n"
    "                [--thread-strides S,..] [--subgroup-size N]\n"
    "                [--num-subgroups N] [--cell PX] [--title TEXT] [-o FILE]\n"
    "       ixa draw --tile R,C --dtype T --write MAP --read MAP\n"
    "                [--write-vector N] [--read-vector N]\n"
    "                [--access read|write] [--cell PX] [--title TEXT] [-o "
    "FILE]\n"
    "\n"
    "Renders a layout to SVG: an XLA tiled layout (--shape), an IREE\n"
    "nested layout (--thread-tile and the other tiles, one size per\n"
    "dimension each), or a shared-memory tile colored by bank (--tile)\n"
    "before and after the layout the `swizzle` op picks, with the lanes of\n"
    "one warp access outlined (the worst-conflicting one before).\n"
    "\n"
    "flags (each one also as --flag=value; the switch --no-memory also as\n"
    "--no-memory=true or --no-memory=false):\n"
    "  --shape SHAPE            an XLA shape with its layout, e.g.\n"
    "                           \"f32[3,5]{1,0:T(2,2)}\"\n"
    "  --thread-tile T,..       nested: threads per dimension (chooses the\n"
    "                           nested form)\n"
    "  --subgroup-tile T,..     nested: subgroups per dimension (default 1s)\n"
    "  --batch-tile T,..        nested: batch tiles per dimension (default "
    "1s)\n"
    "  --outer-tile T,..        nested: outer tiles per dimension (default "
    "1s)\n"
    "  --element-tile T,..      nested: elements per thread and dimension\n"
    "                           (default 1s)\n"
    "  --subgroup-strides S,..  nested: subgroup id strides (default: compact\n"
    "                           row-major, last dimension fastest)\n"
    "  --thread-strides S,..    nested: thread id strides (default: compact\n"
    "                           row-major)\n"
    "  --subgroup-size N        nested: lanes per subgroup, 1 to 4096\n"
    "                           (default: the thread tile's product)\n"
    "  --num-subgroups N        nested: hardware subgroups, 1 to 4096\n"
    "                           (default: the layout's span)\n"
    "  --cell PX                cell size in pixels, 1 to 200 (default: from\n"
    "                           the grid size)\n"
    "  --tile R,C,..            shared tile: its shape (chooses the bank "
    "form)\n"
    "  --dtype T                shared tile: the element type, e.g. f32\n"
    "  --write MAP              shared tile: (thread, loops..) -> tile\n"
    "                           coordinate written\n"
    "  --read MAP               shared tile: the same for the read\n"
    "  --write-vector N         shared tile: elements per lane written\n"
    "                           (default 1)\n"
    "  --read-vector N          shared tile: elements per lane read\n"
    "                           (default 1)\n"
    "  --access read|write      shared tile: the access whose lanes are\n"
    "                           shown (default read)\n"
    "  --no-memory              --shape only: leave out the physical buffer\n"
    "  --title TEXT             the title (default: the layout's text)\n"
    "  -o, --output FILE        write the SVG to FILE ('-': standard output,\n"
    "                           the default)\n"
    "  -h, --help               print this help\n"
    "\n"
    "Errors in SHAPE print as <--shape>:1:COL: error: MESSAGE.\n"
    "\n"
    "exit codes:\n"
    "  0   the SVG was written\n"
    "  1   the layout is invalid (SHAPE does not read, the tiles have\n"
    "      different ranks, a shared tile's map does not read or leaves\n"
    "      the tile, ...)\n"
    "  64  usage error: unknown flag, missing or bad flag value, flags of\n"
    "      both forms, neither --shape nor --thread-tile, an argument\n"
    "  70  internal error\n"
    "  73  the output cannot be written\n";

// The nested form's size lists, in MakeNestedLayout's order.
constexpr std::string_view kListFlags[] = {
    "--subgroup-tile", "--batch-tile",       "--outer-tile",    "--thread-tile",
    "--element-tile",  "--subgroup-strides", "--thread-strides"};

constexpr FlagSpec kDrawFlags[] = {
    {"--shape"},
    {"--subgroup-tile"},
    {"--batch-tile"},
    {"--outer-tile"},
    {"--thread-tile"},
    {"--element-tile"},
    {"--subgroup-strides"},
    {"--thread-strides"},
    {"--subgroup-size"},
    {"--num-subgroups"},
    {"--cell"},
    {"--no-memory", "", false},
    {"--tile"},
    {"--dtype"},
    {"--write"},
    {"--read"},
    {"--write-vector"},
    {"--read-vector"},
    {"--access"},
    {"--title"},
    {"--output", "-o"},
};

std::vector<int64_t> CompactStrides(const std::vector<int64_t>& tiles) {
  std::vector<int64_t> s(tiles.size(), 1);
  for (int i = static_cast<int>(tiles.size()) - 2; i >= 0; --i)
    s[i] = s[i + 1] * tiles[i + 1];
  return s;
}

// Everything the flags ask for, checked; a usage error names the flag.
struct DrawRequest {
  bool nested = false;
  bool banks = false;  // the shared-tile form
  std::vector<int64_t> tile;
  int64_t vectors[2] = {1, 1};  // write, read
  bool show_write = false;
  std::string shape;  // the tiled form, or
  std::map<std::string, std::vector<int64_t>, std::less<>> lists;  // nested
  hw::NestedIds ids;
  hw::SvgOptions options;
};

Result<DrawRequest> DrawRequestOfFlags(const CommandLine& line) {
  auto bad = [](const std::string& message) {
    return Error::BadRequest(message);
  };
  if (!line.operands.empty()) {
    return bad("unexpected argument '" + line.operands[0] +
               "' (the layout is given by flags)");
  }
  DrawRequest r;
  constexpr std::string_view kBankFlags[] = {"--dtype",       "--write",
                                             "--read",        "--write-vector",
                                             "--read-vector", "--access"};
  if (line.Has("--tile")) {
    if (line.Has("--shape") || line.Has("--thread-tile"))
      return bad(
          "--tile draws a shared tile: give it without --shape or "
          "--thread-tile");
    for (std::string_view flag : kListFlags) {
      if (line.Has(flag))
        return bad(std::string(flag) + " applies to a nested layout only");
    }
    if (line.Has("--no-memory"))
      return bad("--no-memory applies to --shape only");
    std::optional<std::vector<int64_t>> tile =
        ParseIntListValue(line.Get("--tile"));
    if (!tile || tile->empty())
      return bad("--tile takes comma-separated sizes; got '" +
                 line.Get("--tile") + "'");
    r.tile = *tile;
    for (const char* flag : {"--dtype", "--write", "--read"}) {
      if (!line.Has(flag)) return bad(std::string("--tile needs ") + flag);
    }
    for (int i = 0; i < 2; ++i) {
      const char* flag = i == 0 ? "--write-vector" : "--read-vector";
      if (!line.Has(flag)) continue;
      std::optional<int64_t> v = ParseIntValue(line.Get(flag), 1, 16);
      if (!v) {
        return bad(std::string(flag) + " must be an integer from 1 to 16; " +
                   "got '" + line.Get(flag) + "'");
      }
      r.vectors[i] = *v;
    }
    if (line.Has("--access")) {
      if (line.Get("--access") != "read" && line.Get("--access") != "write")
        return bad("--access must be read or write");
      r.show_write = line.Get("--access") == "write";
    }
    r.banks = true;
  } else {
    for (std::string_view flag : kBankFlags) {
      if (line.Has(flag))
        return bad(std::string(flag) +
                   " applies to a shared tile (--tile) only");
    }
  }
  const bool nested = line.Has("--thread-tile");
  if (!r.banks && line.Has("--shape") == nested) {
    return bad(nested ? "--shape and --thread-tile draw different layouts: "
                        "give one"
                      : "give --shape or --thread-tile");
  }
  for (std::string_view flag : kListFlags) {
    if (!line.Has(flag)) continue;
    if (!nested) {
      return bad(std::string(flag) + " applies to a nested layout " +
                 "(--thread-tile) only");
    }
    std::optional<std::vector<int64_t>> list =
        ParseIntListValue(line.Get(flag));
    if (!list) {
      return bad(std::string(flag) + " takes comma-separated integers; got '" +
                 line.Get(flag) + "'");
    }
    r.lists[std::string(flag)] = *list;
  }
  for (auto [flag, slot] : {std::pair{"--subgroup-size", &r.ids.subgroup_size},
                            {"--num-subgroups", &r.ids.num_subgroups}}) {
    if (!line.Has(flag)) continue;
    if (!nested) {
      return bad(std::string(flag) +
                 " applies to a nested layout (--thread-tile) only");
    }
    std::optional<int64_t> v = ParseIntValue(line.Get(flag), 1, 4096);
    if (!v) {
      return bad(std::string(flag) + " must be an integer from 1 to 4096; " +
                 "got '" + line.Get(flag) + "'");
    }
    *slot = *v;
  }
  if (line.Has("--no-memory") && nested) {
    return bad("--no-memory applies to --shape only");
  }
  if (line.Has("--cell")) {
    std::optional<int64_t> cell = ParseIntValue(line.Get("--cell"), 1, 200);
    if (!cell) {
      return bad("--cell must be an integer from 1 to 200; got '" +
                 line.Get("--cell") + "'");
    }
    r.options.cell = static_cast<int>(*cell);
  }
  r.options.show_memory = !line.On("--no-memory");
  r.options.title = line.Get("--title");
  r.nested = nested;
  r.shape = line.Get("--shape");
  return r;
}

// The shared-tile picture: the tile before (row-major) and after the
// synthesized layout, the lanes of the worst warp access before.
Result<std::string> DrawBankTile(const CommandLine& line,
                                 const DrawRequest& r) {
  ExprContext ctx;
  auto dtype = hw::FindDType(line.Get("--dtype"));
  if (!dtype)
    return Error::Invalid("unknown dtype '" + line.Get("--dtype") + "'");
  auto bytes = hw::ByteSize(*dtype);
  if (!bytes) return Error::Invalid("a sub-byte shared tile is not modelled");
  hw::SwizzleRequest req;
  req.shape = r.tile;
  req.element_bytes = *bytes;
  IXA_ASSIGN_OR_RETURN(req.write.map,
                       ParseIndexingMap(line.Get("--write"), &ctx));
  IXA_ASSIGN_OR_RETURN(req.read.map,
                       ParseIndexingMap(line.Get("--read"), &ctx));
  req.write.vector_width = r.vectors[0];
  req.read.vector_width = r.vectors[1];
  IXA_ASSIGN_OR_RETURN(hw::SwizzleAnswer a,
                       hw::SynthesizeTileLayout(req, &ctx));
  const hw::TileAccess& shown = r.show_write ? req.write : req.read;
  const hw::BankConflictReport& before =
      r.show_write ? a.write_before : a.read_before;
  // The warp access shown: the counterexample's, else warp 0 at the loops'
  // first values.
  const IndexingMap& map = shown.map;
  int64_t warp = 0;
  std::vector<int64_t> loops;
  if (before.counterexample) {
    warp = before.counterexample->warp;
    loops = before.counterexample->loop_values;
  } else {
    for (int d = 1; d < map.num_dims(); ++d)
      loops.push_back(map.dims()[d].bounds.lower);
    for (int s = 0; s < map.num_symbols(); ++s)
      loops.push_back(map.symbol(s).bounds.lower);
    warp =
        std::max<int64_t>(0, map.dims()[0].bounds.lower / req.model.warp_size);
  }
  hw::BankTilePicture picture;
  picture.shape = r.tile;
  picture.banks = req.model.banks;
  picture.bank_bytes = req.model.bank_bytes;
  for (int64_t lane = 0; lane < req.model.warp_size; ++lane) {
    std::vector<int64_t> dims{warp * req.model.warp_size + lane}, symbols;
    size_t k = 0;
    for (int d = 1; d < map.num_dims(); ++d) dims.push_back(loops[k++]);
    for (; k < loops.size(); ++k) symbols.push_back(loops[k]);
    IXA_ASSIGN_OR_RETURN(bool in, map.InDomain(dims, symbols));
    if (!in) continue;
    IXA_ASSIGN_OR_RETURN(std::vector<int64_t> coords,
                         map.Evaluate(dims, symbols));
    int64_t flat = 0;
    for (size_t d = 0; d < coords.size(); ++d)
      flat = flat * r.tile[d] + coords[d];
    for (int64_t e = 0; e < shown.vector_width; ++e)
      picture.lanes.push_back({flat + e, lane});
  }
  std::string where = "warp " + std::to_string(warp);
  for (size_t i = 0; i < loops.size(); ++i) {
    where += ", " +
             (before.counterexample ? before.counterexample->loop_names[i]
                                    : "loop " + std::to_string(i)) +
             " = " + std::to_string(loops[i]);
  }
  picture.caption =
      std::string(r.show_write ? "the write" : "the read") + " of " + where;
  int64_t size = 1;
  for (int64_t s : r.tile) size *= s;
  for (const hw::TileLayoutScore* s : {&a.before, &a.after}) {
    hw::BankTilePanel panel;
    panel.label = hw::DescribeTileLayout(s->layout) + ": " +
                  std::to_string(s->write_wavefronts + s->read_wavefronts) +
                  " wavefronts, " + std::to_string(s->bytes) + " bytes";
    for (int64_t flat = 0; flat < size; ++flat) {
      panel.bytes.push_back(hw::TileLayoutOffsetAt(s->layout, r.tile, flat) *
                            req.element_bytes);
    }
    picture.panels.push_back(std::move(panel));
  }
  return hw::DrawBankTileSvg(picture, r.options);
}

}  // namespace

int RunDevicesCommand(int argc, char** argv) {
  std::optional<CommandLine> line =
      ReadCommandLine("devices", argc, argv, kDevicesFlags, kDevicesUsage);
  if (!line) return kExitUsage;
  if (line->help) {
    std::cout << kDevicesUsage;
    return kExitOk;
  }
  if (!line->operands.empty()) {
    return UsageError("devices",
                      "unexpected argument '" + line->operands[0] + "'",
                      kDevicesUsage);
  }
  if (line->Has("--devices")) {
    int exit_code = kExitOk;
    if (!LoadDevicesFlag("devices", line->Get("--devices"), &exit_code)) {
      return exit_code;
    }
  }
  std::vector<hw::Device> devices(UserDevices().begin(), UserDevices().end());
  devices.insert(devices.end(), hw::BuiltinDevices().begin(),
                 hw::BuiltinDevices().end());
  std::ostringstream out;
  if (line->On("--json")) {
    for (const hw::Device& d : devices) out << DeviceJson(d).dump() << "\n";
  } else {
    out << std::left << std::setw(11) << "name" << std::setw(8) << "vendor"
        << std::right << std::setw(5) << "warp" << std::setw(8) << "sector"
        << std::setw(6) << "line" << std::setw(7) << "banks" << std::setw(11)
        << "DRAM GB/s" << std::setw(8) << "fp32 TF" << std::setw(8) << "bf16 TF"
        << std::setw(6) << "SMs"
        << "\n";
    for (const hw::Device& d : devices) {
      out << std::left << std::setw(11) << d.name << std::setw(8) << d.vendor
          << std::right << std::setw(5) << d.warp_size << std::setw(8)
          << d.sector_bytes << std::setw(6) << d.line_bytes << std::setw(7)
          << d.smem_banks << std::setw(11) << d.dram_gbps << std::setw(8)
          << d.peak_tflops_fp32 << std::setw(8) << d.peak_tflops_bf16
          << std::setw(6) << d.sm_count << "\n";
    }
  }
  return WriteOutput("devices", "", out.str()) ? kExitOk : kExitCannotCreate;
}

int RunDrawCommand(int argc, char** argv) {
  std::optional<CommandLine> line =
      ReadCommandLine("draw", argc, argv, kDrawFlags, kDrawUsage);
  if (!line) return kExitUsage;
  if (line->help) {
    std::cout << kDrawUsage;
    return kExitOk;
  }
  Result<DrawRequest> request = DrawRequestOfFlags(*line);
  if (!request.ok()) {
    return UsageError("draw", request.error().message, kDrawUsage);
  }
  DrawRequest& r = *request;
  std::string svg;
  if (r.banks) {
    Result<std::string> drawn = DrawBankTile(*line, r);
    if (!drawn.ok()) {
      std::cerr << CompilerStyleError("ixa draw", drawn.error()) << "\n";
      return kExitSomeFailed;
    }
    svg = *drawn;
  } else if (!r.nested) {
    auto shape = hw::ParseXlaShape(r.shape);
    if (!shape.ok()) {
      std::cerr << CompilerStyleError("<--shape>", shape.error()) << "\n";
      return kExitSomeFailed;
    }
    ExprContext ctx;
    auto info = hw::AnalyzeTiledLayout(*shape, &ctx);
    if (!info.ok()) {
      std::cerr << CompilerStyleError("<--shape>", info.error()) << "\n";
      return kExitSomeFailed;
    }
    svg = hw::DrawTiledLayoutSvg(*shape, r.options);
  } else {
    auto& lists = r.lists;
    const size_t rank = lists["--thread-tile"].size();
    for (std::string_view flag : kListFlags) {
      if (!lists.count(flag)) {
        lists[std::string(flag)] = flag.find("strides") == flag.npos
                                       ? std::vector<int64_t>(rank, 1)
                                       : std::vector<int64_t>();
      }
    }
    if (lists["--subgroup-strides"].empty())
      lists["--subgroup-strides"] = CompactStrides(lists["--subgroup-tile"]);
    if (lists["--thread-strides"].empty())
      lists["--thread-strides"] = CompactStrides(lists["--thread-tile"]);
    auto layout = hw::MakeNestedLayout(
        lists["--subgroup-tile"], lists["--batch-tile"], lists["--outer-tile"],
        lists["--thread-tile"], lists["--element-tile"],
        lists["--subgroup-strides"], lists["--thread-strides"]);
    if (!layout.ok()) {
      std::cerr << CompilerStyleError("ixa draw", layout.error()) << "\n";
      return kExitSomeFailed;
    }
    svg = hw::DrawNestedLayoutSvg(*layout, r.ids, r.options);
  }
  return WriteOutput("draw", line->Get("--output"), svg) ? kExitOk
                                                         : kExitCannotCreate;
}

}  // namespace ixa::cli
