// Typed attribute values (attributes.h).
#include "analysis/hlo/attributes.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace ixa::hlo {

Result<std::vector<int64_t>> IntListAttr(std::string_view raw, Position pos,
                                         std::string_view what) {
  Cursor c(raw, pos);
  IXA_ASSIGN_OR_RETURN(std::vector<int64_t> v, c.IntList(what));
  if (!c.AtEnd()) return c.Fail("end of " + std::string(what));
  return v;
}

Result<int64_t> IntAttr(std::string_view raw, Position pos,
                        std::string_view what) {
  Cursor c(raw, pos);
  IXA_ASSIGN_OR_RETURN(int64_t v, c.ExpectInt(what));
  if (!c.AtEnd()) return c.Fail("end of " + std::string(what));
  return v;
}

// `{[5:10:1], [3:20:7]}`; the stride may be omitted.
Result<std::vector<SliceDim>> SliceAttr(std::string_view raw, Position pos) {
  Cursor c(raw, pos);
  std::vector<SliceDim> out;
  IXA_HLO_TRY(c.Expect('{', "starting slice"));
  if (c.Consume('}')) return out;
  while (true) {
    SliceDim d;
    IXA_HLO_TRY(
        c.Expect('[', "starting a slice dimension [start:limit:stride]"));
    IXA_ASSIGN_OR_RETURN(d.start, c.ExpectInt("a slice start"));
    IXA_HLO_TRY(c.Expect(':', "after the slice start"));
    IXA_ASSIGN_OR_RETURN(d.limit, c.ExpectInt("a slice limit"));
    if (c.Consume(':')) {
      IXA_ASSIGN_OR_RETURN(d.stride, c.ExpectInt("a slice stride"));
    }
    IXA_HLO_TRY(c.Expect(']', "closing a slice dimension"));
    out.push_back(d);
    if (c.Consume('}')) break;
    IXA_HLO_TRY(c.Expect(',', "or '}' in slice"));
  }
  if (!c.AtEnd()) return c.Fail("end of slice");
  return out;
}

// `1_4_1x4_8_0`: low_high[_interior] per dimension, separated by 'x'.
Result<std::vector<PadDim>> PaddingAttr(std::string_view raw, Position pos) {
  Cursor c(raw, pos);
  std::vector<PadDim> out;
  while (true) {
    PadDim d;
    IXA_ASSIGN_OR_RETURN(d.low, c.ExpectInt("a low padding"));
    IXA_HLO_TRY(c.Expect('_', "between low and high padding"));
    IXA_ASSIGN_OR_RETURN(d.high, c.ExpectInt("a high padding"));
    if (c.Consume('_')) {
      IXA_ASSIGN_OR_RETURN(d.interior, c.ExpectInt("an interior padding"));
      if (d.interior < 0) return c.Fail("a non-negative interior padding");
    }
    out.push_back(d);
    if (c.AtEnd()) break;
    IXA_HLO_TRY(c.Expect('x', "between padding dimensions"));
  }
  return out;
}

// `{size=1x512 pad=0_0x0_0 stride=1x2 lhs_dilate=1x1 rhs_dilate=1x1
// rhs_reversal=0x1}`.
Result<std::vector<WindowDim>> WindowAttr(std::string_view raw, Position pos) {
  Cursor c(raw, pos);
  std::vector<WindowDim> dims;
  IXA_HLO_TRY(c.Expect('{', "starting window"));
  auto ensure = [&](size_t n) {
    if (dims.size() < n) dims.resize(n);
  };
  while (!c.Consume('}')) {
    Position key_pos = c.position();
    IXA_ASSIGN_OR_RETURN(std::string_view key,
                         c.ExpectName("a window field (size, pad, stride, "
                                      "lhs_dilate, rhs_dilate) or '}'"));
    // Names may swallow the 'x' separators of the value, so values are
    // read character by character here.
    IXA_HLO_TRY(c.Expect('=', "after the window field"));
    size_t i = 0;
    while (true) {
      ensure(i + 1);
      WindowDim& d = dims[i];
      if (key == "pad") {
        IXA_ASSIGN_OR_RETURN(d.pad_low, c.ExpectInt("a low padding"));
        IXA_HLO_TRY(c.Expect('_', "between low and high padding"));
        IXA_ASSIGN_OR_RETURN(d.pad_high, c.ExpectInt("a high padding"));
      } else {
        IXA_ASSIGN_OR_RETURN(int64_t v, c.ExpectInt("a window value"));
        if (key == "size") {
          d.size = v;
        } else if (key == "stride") {
          d.stride = v;
        } else if (key == "lhs_dilate") {
          d.base_dilation = v;
        } else if (key == "rhs_dilate") {
          d.window_dilation = v;
        } else if (key == "rhs_reversal") {
          d.reversal = v != 0;
        } else {
          return Cursor::FailAt(
              key_pos, "unknown window field '" + std::string(key) + "'");
        }
        if (key != "rhs_reversal" && v <= 0) {
          return Cursor::FailAt(
              key_pos, "window " + std::string(key) + " must be positive");
        }
      }
      ++i;
      if (c.PeekRaw() != 'x') break;
      c.Consume('x');
    }
  }
  if (!c.AtEnd()) return c.Fail("end of window");
  return dims;
}

Result<ConvDimensionNumbers> DimLabelsAttr(std::string_view raw, Position pos) {
  ConvDimensionNumbers dn;
  auto fail = [&](const std::string& m) {
    return Cursor::FailAt(pos, "dim_labels: " + m);
  };
  size_t us = raw.find('_'), arrow = raw.find("->");
  if (us == std::string_view::npos || arrow == std::string_view::npos ||
      us > arrow) {
    return fail("expected <input>_<kernel>-><output>, e.g. b01f_01io->b01f");
  }
  std::string_view in = raw.substr(0, us),
                   ker = raw.substr(us + 1, arrow - us - 1),
                   out = raw.substr(arrow + 2);
  // One tensor's labels: the two named roles, spatial dims 0-9 (each once,
  // numbered densely), and `?` for a position no role names.
  auto parse = [&](std::string_view s, char a, char b, int64_t* pa, int64_t* pb,
                   std::vector<int64_t>* spatial) -> bool {
    *pa = *pb = -1;
    std::vector<int64_t> sp(s.size(), -1);
    size_t n_spatial = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == a) {
        if (*pa >= 0) return false;
        *pa = i;
      } else if (s[i] == b) {
        if (*pb >= 0) return false;
        *pb = i;
      } else if (s[i] >= '0' && s[i] <= '9') {
        size_t k = s[i] - '0';
        if (k >= sp.size() || sp[k] >= 0) return false;
        sp[k] = i;
        ++n_spatial;
      } else if (s[i] == '?') {
        dn.has_unlabeled = true;
      } else {
        return false;
      }
    }
    if (*pa < 0 || *pb < 0) return false;
    sp.resize(n_spatial);
    for (int64_t v : sp) {
      if (v < 0) return false;
    }
    *spatial = sp;
    return true;
  };
  if (!parse(in, 'b', 'f', &dn.input_batch, &dn.input_feature,
             &dn.input_spatial) ||
      !parse(ker, 'i', 'o', &dn.kernel_input_feature, &dn.kernel_output_feature,
             &dn.kernel_spatial) ||
      !parse(out, 'b', 'f', &dn.output_batch, &dn.output_feature,
             &dn.output_spatial) ||
      dn.input_spatial.size() != dn.kernel_spatial.size() ||
      dn.input_spatial.size() != dn.output_spatial.size()) {
    return fail("malformed labels '" + std::string(raw) + "'");
  }
  dn.input_rank = static_cast<int64_t>(in.size());
  dn.kernel_rank = static_cast<int64_t>(ker.size());
  dn.output_rank = static_cast<int64_t>(out.size());
  return dn;
}

Result<std::vector<std::vector<int64_t>>> IntListListAttr(
    std::string_view raw, Position pos, std::string_view what) {
  Cursor c(raw, pos);
  std::vector<std::vector<int64_t>> lists;
  IXA_HLO_TRY(c.Expect('{', "starting " + std::string(what)));
  if (!c.Consume('}')) {
    while (true) {
      IXA_ASSIGN_OR_RETURN(std::vector<int64_t> v, c.IntList(what));
      lists.push_back(std::move(v));
      if (c.Consume('}')) break;
      IXA_HLO_TRY(c.Expect(',', "or '}' in " + std::string(what)));
    }
  }
  if (!c.AtEnd()) return c.Fail("end of " + std::string(what));
  return lists;
}

namespace {

// `[G,S]<=[d0,...]T(p0,...)`, the '[' consumed: the devices 0..N-1 laid
// out as the dims d, transposed by the permutation p (identity when
// absent), read in order and cut into G groups of S.
Result<std::vector<std::vector<int64_t>>> IotaReplicaGroups(Cursor* c,
                                                            Position pos) {
  IXA_ASSIGN_OR_RETURN(int64_t g, c->ExpectInt("the number of groups"));
  IXA_HLO_TRY(c->Expect(',', "in the iota replica groups"));
  IXA_ASSIGN_OR_RETURN(int64_t s, c->ExpectInt("the group size"));
  IXA_HLO_TRY(c->Expect(']', "in the iota replica groups"));
  if (!c->ConsumeString("<=")) {
    return c->Fail("'<=' in the iota replica groups");
  }
  IXA_HLO_TRY(c->Expect('[', "in the iota replica groups"));
  std::vector<int64_t> dims;
  int64_t n = 1;
  while (true) {
    IXA_ASSIGN_OR_RETURN(int64_t d, c->ExpectInt("a device dimension"));
    if (d <= 0 || __builtin_mul_overflow(n, d, &n)) {
      return Cursor::FailAt(
          pos, "replica_groups: bad device dimension " + std::to_string(d));
    }
    dims.push_back(d);
    if (c->Consume(']')) break;
    IXA_HLO_TRY(c->Expect(',', "or ']' in the iota device dimensions"));
  }
  std::vector<int64_t> perm(dims.size());
  std::iota(perm.begin(), perm.end(), 0);
  if (c->Peek() == 'T') {
    c->ConsumeString("T");
    IXA_ASSIGN_OR_RETURN(perm, [&]() -> Result<std::vector<int64_t>> {
      IXA_HLO_TRY(c->Expect('(', "after T in the iota replica groups"));
      std::vector<int64_t> p;
      while (true) {
        IXA_ASSIGN_OR_RETURN(int64_t v, c->ExpectInt("a permutation entry"));
        p.push_back(v);
        if (c->Consume(')')) return p;
        IXA_HLO_TRY(c->Expect(',', "or ')' in the permutation"));
      }
    }());
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    bool ok = sorted.size() == dims.size();
    for (size_t i = 0; ok && i < sorted.size(); ++i) {
      ok = sorted[i] == static_cast<int64_t>(i);
    }
    if (!ok) {
      return Cursor::FailAt(pos,
                            "replica_groups: T(...) is not a permutation of "
                            "the " +
                                std::to_string(dims.size()) + " device dims");
    }
  }
  if (!c->AtEnd()) return c->Fail("end of replica_groups");
  int64_t gs;
  if (g <= 0 || s <= 0 || __builtin_mul_overflow(g, s, &gs) || gs != n) {
    return Cursor::FailAt(pos, "replica_groups: [G,S]<=[dims] needs G*S == " +
                                   std::to_string(n) + " devices");
  }
  std::vector<std::vector<int64_t>> groups;
  if (n > kMaxExpandedDevices) return groups;
  // Device at position k of the transposed array: its index in the
  // original (row-major over dims) layout.
  const size_t r = dims.size();
  std::vector<int64_t> tdims(r), strides(r, 1);
  for (size_t i = r; i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  for (size_t i = 0; i < r; ++i) tdims[i] = dims[perm[i]];
  std::vector<int64_t> idx(r, 0);
  groups.assign(g, {});
  for (int64_t k = 0; k < n; ++k) {
    int64_t device = 0;
    for (size_t i = 0; i < r; ++i) device += idx[i] * strides[perm[i]];
    groups[k / s].push_back(device);
    for (size_t i = r; i-- > 0;) {
      if (++idx[i] < tdims[i]) break;
      idx[i] = 0;
    }
  }
  return groups;
}

// `mesh['a'=2,'b'=4] {'b'}`, `mesh` consumed: devices numbered row-major
// over the mesh axes; a group holds the devices that differ only on the
// listed axes (row-major over those, in the listed order).
Result<std::vector<std::vector<int64_t>>> MeshReplicaGroups(Cursor* c,
                                                            Position pos) {
  auto quoted = [&](std::string_view what) -> Result<std::string> {
    IXA_HLO_TRY(c->Expect('\'', "opening " + std::string(what)));
    std::string name;
    while (c->PeekRaw() != '\'' && c->PeekRaw() != '\0') name += c->Next();
    IXA_HLO_TRY(c->Expect('\'', "closing " + std::string(what)));
    return name;
  };
  IXA_HLO_TRY(c->Expect('[', "after mesh"));
  std::vector<std::string> axes;
  std::vector<int64_t> sizes;
  int64_t n = 1;
  while (true) {
    IXA_ASSIGN_OR_RETURN(std::string name, quoted("a mesh axis name"));
    IXA_HLO_TRY(c->Expect('=', "after the mesh axis name"));
    IXA_ASSIGN_OR_RETURN(int64_t size, c->ExpectInt("a mesh axis size"));
    if (size <= 0 || __builtin_mul_overflow(n, size, &n) ||
        std::find(axes.begin(), axes.end(), name) != axes.end()) {
      return Cursor::FailAt(pos,
                            "replica_groups: bad mesh axis '" + name + "'");
    }
    axes.push_back(name);
    sizes.push_back(size);
    if (c->Consume(']')) break;
    IXA_HLO_TRY(c->Expect(',', "or ']' in the mesh axes"));
  }
  IXA_HLO_TRY(c->Expect('{', "starting the mesh group axes"));
  std::vector<size_t> group_axes;
  if (!c->Consume('}')) {
    while (true) {
      IXA_ASSIGN_OR_RETURN(std::string name, quoted("a mesh axis name"));
      auto it = std::find(axes.begin(), axes.end(), name);
      if (it == axes.end()) {
        return Cursor::FailAt(
            pos, "replica_groups: unknown mesh axis '" + name + "'");
      }
      group_axes.push_back(it - axes.begin());
      if (c->Consume('}')) break;
      IXA_HLO_TRY(c->Expect(',', "or '}' in the mesh group axes"));
    }
  }
  if (!c->AtEnd()) return c->Fail("end of replica_groups");
  std::vector<std::vector<int64_t>> groups;
  if (n > kMaxExpandedDevices) return groups;
  const size_t r = sizes.size();
  std::vector<int64_t> strides(r, 1);
  for (size_t i = r; i-- > 1;) strides[i - 1] = strides[i] * sizes[i];
  std::vector<bool> in_group(r, false);
  for (size_t a : group_axes) in_group[a] = true;
  // Outer loop over the other axes (one group each), inner over the
  // group axes in the listed order.
  std::vector<size_t> outer;
  for (size_t i = 0; i < r; ++i) {
    if (!in_group[i]) outer.push_back(i);
  }
  auto for_each_index = [](const std::vector<size_t>& which,
                           const std::vector<int64_t>& sizes, const auto& f) {
    std::vector<int64_t> idx(which.size(), 0);
    while (true) {
      f(idx);
      size_t i = which.size();
      while (i-- > 0) {
        if (++idx[i] < sizes[which[i]]) break;
        idx[i] = 0;
      }
      if (i == static_cast<size_t>(-1)) return;
    }
  };
  for_each_index(outer, sizes, [&](const std::vector<int64_t>& o) {
    int64_t base = 0;
    for (size_t i = 0; i < outer.size(); ++i) base += o[i] * strides[outer[i]];
    groups.emplace_back();
    for_each_index(group_axes, sizes, [&](const std::vector<int64_t>& g) {
      int64_t device = base;
      for (size_t i = 0; i < group_axes.size(); ++i) {
        device += g[i] * strides[group_axes[i]];
      }
      groups.back().push_back(device);
    });
  });
  return groups;
}

}  // namespace

Result<std::vector<std::vector<int64_t>>> ReplicaGroupsAttr(
    std::string_view raw, Position pos) {
  Cursor c(raw, pos);
  if (c.Consume('[')) return IotaReplicaGroups(&c, pos);
  if (c.ConsumeWord("mesh")) return MeshReplicaGroups(&c, pos);
  return IntListListAttr(raw, pos, "replica_groups");
}

}  // namespace ixa::hlo
