// The CPU execution model of CUDA (cuda_model.h): the grid's blocks run
// one after another; the threads of a block are Boost.Context fibers that
// switch only at barriers, warp collectives and (in random order) atomics.
// Memory accesses arrive through the ThreadSanitizer instrumentation hooks
// defined at the end, and a shadow cell per byte of global and shared
// memory remembers the last writer and reader with the synchronisation
// epochs they saw.
//
// Compiled by the test driver without instrumentation into every kernel
// batch (a shared object), so the hooks it defines serve the kernels there.
#include <sys/mman.h>

#include <algorithm>
#include <boost/context/fiber.hpp>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

// Last: its macros (__shared__, threadIdx, ...) are for kernel text.
#include "cuda_model.h"

namespace ixa_cuda_model {
namespace {

namespace context = boost::context;

constexpr int kWarpSize = 32;
constexpr int kMaxThreadsPerBlock = 1024;
constexpr size_t kStackBytes = 256 * 1024;
constexpr size_t kPageBytes = 4096;  // a guard page below each stack
constexpr size_t kMaxValueBytes = 16;

// ---- Errors ----

std::string g_error;  // the first error of the launch

void Report(const char* format, ...) __attribute__((format(printf, 1, 2)));
void Report(const char* format, ...) {
  if (!g_error.empty()) return;
  char text[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(text, sizeof(text), format, args);
  va_end(args);
  g_error = text;
}

// ---- Threads and blocks ----

enum class State { kReady, kRunning, kBarrier, kWarp, kDone };

struct Thread {
  uint3 thread_idx{};
  unsigned linear = 0;  // within the block
  unsigned warp = 0, lane = 0;
  uint32_t id = 0;  // grid-wide, from 1
  State state = State::kReady;
  context::fiber fiber;      // the thread, while it is suspended
  context::fiber scheduler;  // the scheduler, while the thread runs
  void* result = nullptr;    // where a warp collective's answer goes
};

// Lanes of one warp meeting in a collective with one mask.
struct WarpGroup {
  Collective kind;
  unsigned int mask = 0, arrived = 0;
  size_t bytes = 0;
  unsigned char values[kWarpSize][kMaxValueBytes];
  int arguments[kWarpSize];
  int widths[kWarpSize];
};

// Does nothing: the stacks are the model's, reused by every block.
struct KeepStack {
  context::stack_context allocate() { return {}; }
  void deallocate(context::stack_context&) noexcept {}
};

const char* CollectiveName(Collective k) {
  switch (k) {
    case Collective::kShflIndex:
      return "__shfl_sync";
    case Collective::kShflUp:
      return "__shfl_up_sync";
    case Collective::kShflDown:
      return "__shfl_down_sync";
    case Collective::kShflXor:
      return "__shfl_xor_sync";
    case Collective::kBallot:
      return "__ballot_sync";
    case Collective::kAny:
      return "__any_sync";
    case Collective::kAll:
      return "__all_sync";
    case Collective::kSyncWarp:
      return "__syncwarp";
  }
  return "?";
}

// ---- Shadow memory ----

constexpr uint32_t kAtomic = 0x80000000u;

// Per byte: the last writer and reader (grid-wide thread ids, 0: none),
// each with the synchronisation it had seen (Meta: the block's barrier
// count in bits 0-15, its warp's __syncwarp count in bits 16-30) and,
// for the writer, whether the write was atomic (bit 31).
struct Cell {
  uint32_t writer = 0, write_meta = 0;
  uint32_t reader = 0, read_meta = 0;
};

struct Region {
  const char* begin = nullptr;
  const char* end = nullptr;
  int buffer = -1;  // -1: shared memory
  bool writable = false;
  Cell* cells = nullptr;
};

Cell* MapCells(size_t bytes) {
  if (bytes == 0) return nullptr;
  void* p = mmap(nullptr, bytes * sizeof(Cell), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? nullptr : static_cast<Cell*>(p);
}

void UnmapCells(Cell* cells, size_t bytes) {
  if (cells) munmap(cells, bytes * sizeof(Cell));
}

}  // namespace
}  // namespace ixa_cuda_model

// The shared-memory section's bounds (the linker defines them when some
// kernel of the shared object declares __shared__ memory).
extern "C" char __start_ixa_cuda_shared[] __attribute__((weak));
extern "C" char __stop_ixa_cuda_shared[] __attribute__((weak));

namespace ixa_cuda_model {
namespace {

struct GridRun {
  LaunchConfig config;
  dim3 grid, block;
  unsigned threads_per_block = 0, warps = 0;
  uint3 block_idx{};
  std::vector<Thread> threads;
  std::deque<Thread*> ready;
  std::mt19937_64 rng;
  // Synchronisation of the running block.
  unsigned barrier_arrived = 0, exited = 0;
  uint32_t block_epoch = 0;
  std::vector<uint32_t> warp_epoch;
  std::vector<std::vector<WarpGroup>> groups;  // pending, per warp
  // Memory.
  std::vector<Region> regions;  // the buffers (an in-place pair once)
  Region shared;
  size_t shared_dirty_begin = SIZE_MAX, shared_dirty_end = 0;
  // Atomic operations so far, and the most a test allows
  // (IXA_CUDA_MODEL_ATOMIC_LIMIT: a kernel meant to fold its updates
  // before it writes them makes fewer than one per update).
  uint64_t atomics = 0, atomic_limit = UINT64_MAX;
};

GridRun* g_run = nullptr;
Thread* g_current = nullptr;
// True while kernel code runs (not the model's own code): only then are
// the hooks' accesses the kernel's.
bool g_in_kernel = false;
char* g_stacks = nullptr;  // kMaxThreadsPerBlock stacks, each over a guard
size_t g_stacks_bytes = 0;

// The model's own code runs (an atomic's read-modify-write, say): no
// thread's access, and no host code's either.
bool g_in_model = false;
class ModelCode {  // the model's own code runs (hooks ignore accesses)
 public:
  ModelCode() : saved_(g_in_kernel), saved_model_(g_in_model) {
    g_in_kernel = false;
    g_in_model = true;
  }
  ~ModelCode() {
    g_in_kernel = saved_;
    g_in_model = saved_model_;
  }

 private:
  bool saved_, saved_model_;
};

uint32_t BlockOf(const GridRun& run, uint32_t id) {
  return (id - 1) / run.threads_per_block;
}
uint32_t WarpOf(const GridRun& run, uint32_t id) {
  return ((id - 1) % run.threads_per_block) / kWarpSize;
}

uint32_t Meta(const GridRun& run, const Thread& t) {
  return (run.block_epoch & 0xffffu) |
         ((run.warp_epoch[t.warp] & 0x7fffu) << 16);
}

// Whether an access by `other` (recorded with `meta`) happens before the
// running thread's access: the same thread, or a barrier of the block (or
// a __syncwarp of the warp) between them.
bool Ordered(const GridRun& run, const Thread& me, uint32_t other,
             uint32_t meta) {
  if (other == me.id) return true;
  if (BlockOf(run, other) != BlockOf(run, me.id)) return false;
  if ((meta & 0xffffu) != (run.block_epoch & 0xffffu)) return true;
  return WarpOf(run, other) == me.warp &&
         ((meta >> 16) & 0x7fffu) != (run.warp_epoch[me.warp] & 0x7fffu);
}

std::string ThreadName(const GridRun& run, uint32_t id) {
  unsigned block = (id - 1) / run.threads_per_block;
  unsigned t = (id - 1) % run.threads_per_block;
  char s[160];
  snprintf(s, sizeof(s), "block (%u, %u, %u) thread (%u, %u, %u)",
           block % run.grid.x, (block / run.grid.x) % run.grid.y,
           block / (run.grid.x * run.grid.y), t % run.block.x,
           (t / run.block.x) % run.block.y, t / (run.block.x * run.block.y));
  return s;
}

std::string Where(const Region& r, const char* p) {
  char s[96];
  if (r.buffer < 0) {
    snprintf(s, sizeof(s), "shared memory byte %zu",
             static_cast<size_t>(p - r.begin));
  } else {
    snprintf(s, sizeof(s), "buffer %d byte %zu", r.buffer,
             static_cast<size_t>(p - r.begin));
  }
  return s;
}

enum class Access { kRead, kWrite, kAtomicRead, kAtomicWrite };

void CheckCell(GridRun& run, const Thread& me, const Region& r, const char* p,
               Access access) {
  Cell& c = r.cells[p - r.begin];
  const bool write = access == Access::kWrite || access == Access::kAtomicWrite;
  const bool atomic =
      access == Access::kAtomicRead || access == Access::kAtomicWrite;
  if (c.writer != 0 && c.writer != me.id &&
      !((c.write_meta & kAtomic) && (atomic || !write)) &&
      !Ordered(run, me, c.writer, c.write_meta)) {
    Report("race: %s %s %s, which %s wrote%s with no barrier between",
           ThreadName(run, me.id).c_str(),
           write ? (atomic ? "atomically updates" : "writes") : "reads",
           Where(r, p).c_str(), ThreadName(run, c.writer).c_str(),
           (c.write_meta & kAtomic) ? " atomically" : "");
  }
  if (write && !atomic && c.reader != 0 && c.reader != me.id &&
      !Ordered(run, me, c.reader, c.read_meta)) {
    Report("race: %s writes %s, which %s read with no barrier between",
           ThreadName(run, me.id).c_str(), Where(r, p).c_str(),
           ThreadName(run, c.reader).c_str());
  }
  if (!write && r.buffer < 0 && c.writer == 0) {
    Report("%s reads %s, which no thread of the block wrote",
           ThreadName(run, me.id).c_str(), Where(r, p).c_str());
  }
  if (write) {
    c.writer = me.id;
    c.write_meta = Meta(run, me) | (atomic ? kAtomic : 0);
  } else {
    c.reader = me.id;
    c.read_meta = Meta(run, me);
  }
}

const Region* FindRegion(const GridRun& run, const char* p) {
  if (run.shared.cells && p >= run.shared.begin && p < run.shared.end)
    return &run.shared;
  // Few buffers: a linear scan.
  for (const Region& r : run.regions) {
    if (p >= r.begin && p < r.end) return &r;
  }
  return nullptr;
}

void OnAccess(const void* address, size_t bytes, Access access, bool aligned) {
  if (bytes == 0) return;
  const bool write = access == Access::kWrite || access == Access::kAtomicWrite;
  if (!g_in_kernel) {
    if (!g_in_model) OnHostAccess(address, bytes, write);
    return;
  }
  ModelCode model;
  GridRun& run = *g_run;
  const char* p = static_cast<const char*>(address);
  // The thread's own stack: its local variables.
  if (p >= g_stacks && p < g_stacks + g_stacks_bytes) return;
  const Region* r = FindRegion(run, p);
  if (!r) {
    if (p + bytes > run.config.arena_begin && p < run.config.arena_end) {
      // Name the buffer that ends last before the access.
      const Region* before = nullptr;
      for (const Region& o : run.regions) {
        if (o.end <= p && (!before || o.end > before->end)) before = &o;
      }
      char where[96] = "before the first buffer";
      if (before) {
        snprintf(where, sizeof(where), "%td bytes past the end of buffer %d",
                 p - before->end, before->buffer);
      }
      Report("%s %s %zu bytes outside every buffer (%s)",
             ThreadName(run, g_current->id).c_str(), write ? "writes" : "reads",
             bytes, where);
    } else if (write) {
      Report(
          "%s writes memory that is no buffer, no shared memory and not "
          "its own stack",
          ThreadName(run, g_current->id).c_str());
    }
    return;  // reads of constant tables
  }
  if (p + bytes > r->end) {
    Report("%s %s %zu bytes across the end of %s",
           ThreadName(run, g_current->id).c_str(), write ? "writes" : "reads",
           bytes, r->buffer < 0 ? "shared memory" : "a buffer");
    return;
  }
  if (aligned && bytes > 1 && reinterpret_cast<uintptr_t>(p) % bytes != 0) {
    Report("%s makes a misaligned %zu-byte access at %s",
           ThreadName(run, g_current->id).c_str(), bytes, Where(*r, p).c_str());
  }
  if (write && !r->writable) {
    Report("%s writes %s, which the kernel receives as a pointer to const",
           ThreadName(run, g_current->id).c_str(), Where(*r, p).c_str());
  }
  if (r->buffer < 0) {
    size_t at = static_cast<size_t>(p - r->begin);
    run.shared_dirty_begin = std::min(run.shared_dirty_begin, at);
    run.shared_dirty_end = std::max(run.shared_dirty_end, at + bytes);
  }
  for (size_t i = 0; i < bytes; ++i) {
    CheckCell(run, *g_current, *r, p + i, access);
  }
}

// ---- Scheduling ----

void Yield() {
  Thread* t = g_current;
  // Whether kernel or model code runs is the thread's own state: the
  // threads that run meanwhile set it as they please.
  const bool in_kernel = g_in_kernel, in_model = g_in_model;
  t->scheduler = std::move(t->scheduler).resume();
  g_in_kernel = in_kernel;
  g_in_model = in_model;
  // Resumed: the scheduler set g_current back to this thread.
}

// Makes threads ready in the launch's order.
void MakeReady(GridRun& run, std::vector<Thread*> threads) {
  std::sort(
      threads.begin(), threads.end(), [&](const Thread* a, const Thread* b) {
        return run.config.order == Order::kReverse ? a->linear > b->linear
                                                   : a->linear < b->linear;
      });
  for (Thread* t : threads) {
    t->state = State::kReady;
    run.ready.push_back(t);
  }
}

Thread* NextReady(GridRun& run) {
  if (run.ready.empty()) return nullptr;
  if (run.config.order == Order::kRandom) {
    std::uniform_int_distribution<size_t> pick(0, run.ready.size() - 1);
    size_t i = pick(run.rng);
    std::swap(run.ready[i], run.ready.front());
  }
  Thread* t = run.ready.front();
  run.ready.pop_front();
  return t;
}

std::string DescribeStuck(const GridRun& run) {
  std::string s;
  unsigned at_barrier = 0;
  for (const Thread& t : run.threads) at_barrier += t.state == State::kBarrier;
  if (at_barrier) {
    s += std::to_string(at_barrier) + " of " +
         std::to_string(run.threads_per_block) +
         " threads wait at __syncthreads";
  }
  for (unsigned w = 0; w < run.warps; ++w) {
    for (const WarpGroup& g : run.groups[w]) {
      char text[200];
      snprintf(text, sizeof(text),
               "%slanes 0x%08x of warp %u do not arrive at %s (mask 0x%08x)",
               s.empty() ? "" : "; ", g.mask & ~g.arrived, w,
               CollectiveName(g.kind), g.mask);
      s += text;
    }
  }
  return s;
}

void ThreadExited(GridRun& run, Thread& t) {
  t.state = State::kDone;
  ++run.exited;
  if (run.barrier_arrived > 0) {
    Report(
        "barrier not reached by every thread: block (%u, %u, %u) thread "
        "%u exits while %u threads wait at __syncthreads",
        run.block_idx.x, run.block_idx.y, run.block_idx.z, t.linear,
        run.barrier_arrived);
  }
  for (const WarpGroup& g : run.groups[t.warp]) {
    if (g.mask & (1u << t.lane)) {
      Report(
          "lane %u of warp %u does not arrive at %s (mask 0x%08x): it "
          "exits while the other lanes wait",
          t.lane, t.warp, CollectiveName(g.kind), g.mask);
    }
  }
}

void RunBlock(GridRun& run, void (*body)(void*), void* context_arg,
              uint32_t block_linear) {
  run.block_idx = {block_linear % run.grid.x,
                   (block_linear / run.grid.x) % run.grid.y,
                   block_linear / (run.grid.x * run.grid.y)};
  run.barrier_arrived = 0;
  run.exited = 0;
  run.block_epoch = 0;
  std::fill(run.warp_epoch.begin(), run.warp_epoch.end(), 0);
  for (auto& g : run.groups) g.clear();
  run.ready.clear();
  // Shared memory starts unwritten in every block.
  if (run.shared.cells && run.shared_dirty_begin < run.shared_dirty_end) {
    std::fill(run.shared.cells + run.shared_dirty_begin,
              run.shared.cells + run.shared_dirty_end, Cell{});
  }
  run.shared_dirty_begin = SIZE_MAX;
  run.shared_dirty_end = 0;
  std::vector<Thread*> all;
  for (unsigned i = 0; i < run.threads_per_block; ++i) {
    Thread& t = run.threads[i];
    t.linear = i;
    t.thread_idx = {i % run.block.x, (i / run.block.x) % run.block.y,
                    i / (run.block.x * run.block.y)};
    t.warp = i / kWarpSize;
    t.lane = i % kWarpSize;
    t.id = block_linear * run.threads_per_block + i + 1;
    t.result = nullptr;
    char* top = g_stacks + (i + 1) * (kStackBytes + kPageBytes);
    context::stack_context sctx;
    sctx.sp = top;
    sctx.size = kStackBytes;
    Thread* self = &t;
    t.fiber = context::fiber(
        std::allocator_arg, context::preallocated(top, kStackBytes, sctx),
        KeepStack(), [self, body, context_arg](context::fiber&& scheduler) {
          self->scheduler = std::move(scheduler);
          g_in_kernel = true;
          body(context_arg);
          g_in_kernel = false;
          ThreadExited(*g_run, *self);
          return std::move(self->scheduler);
        });
    all.push_back(&t);
  }
  MakeReady(run, all);
  unsigned done = 0;
  while (done < run.threads_per_block && g_error.empty()) {
    Thread* t = NextReady(run);
    if (!t) {
      Report("block (%u, %u, %u) cannot go on: %s", run.block_idx.x,
             run.block_idx.y, run.block_idx.z, DescribeStuck(run).c_str());
      break;
    }
    t->state = State::kRunning;
    g_current = t;
    t->fiber = std::move(t->fiber).resume();
    g_current = nullptr;
    if (t->state == State::kDone) ++done;
  }
}

// ---- Warp collectives ----

int SourceLane(Collective kind, int lane, int argument, int width) {
  int base = lane - lane % width;
  switch (kind) {
    case Collective::kShflIndex:
      return base + ((argument % width) + width) % width;
    case Collective::kShflUp:
      return lane - base >= argument ? lane - argument : lane;
    case Collective::kShflDown:
      return lane - base + argument < width ? lane + argument : lane;
    case Collective::kShflXor: {
      int src = lane ^ argument;
      return src >= base + width || src < base ? lane : src;
    }
    default:
      return lane;
  }
}

void Complete(GridRun& run, unsigned warp, WarpGroup& g) {
  std::vector<Thread*> waiting;
  unsigned int ballot = 0;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if ((g.mask >> lane) & 1) {
      unsigned int v = 0;
      std::memcpy(&v, g.values[lane], std::min<size_t>(g.bytes, 4));
      if (v) ballot |= 1u << lane;
    }
  }
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!((g.mask >> lane) & 1)) continue;
    Thread& t = run.threads[warp * kWarpSize + lane];
    switch (g.kind) {
      case Collective::kSyncWarp:
        break;
      case Collective::kBallot:
        std::memcpy(t.result, &ballot, 4);
        break;
      case Collective::kAny: {
        unsigned int v = ballot != 0;
        std::memcpy(t.result, &v, 4);
        break;
      }
      case Collective::kAll: {
        unsigned int v = ballot == g.mask;
        std::memcpy(t.result, &v, 4);
        break;
      }
      default: {
        int src = SourceLane(g.kind, lane, g.arguments[lane], g.widths[lane]);
        if (!((g.mask >> src) & 1)) {
          Report(
              "%s: lane %d of warp %u reads lane %d, which is not in the "
              "mask 0x%08x (block (%u, %u, %u))",
              CollectiveName(g.kind), lane, warp, src, g.mask, run.block_idx.x,
              run.block_idx.y, run.block_idx.z);
        }
        std::memcpy(t.result, g.values[src], g.bytes);
      }
    }
    if (&t != g_current) waiting.push_back(&t);
  }
  if (g.kind == Collective::kSyncWarp) ++run.warp_epoch[warp];
  MakeReady(run, waiting);
}

// The region of an atomic access, which must lie inside it (its
// allocation's exact bytes: the emit response's allocation_bytes) and be
// aligned; nullptr after reporting where it is not.
const Region* AtomicRegion(const GridRun& run, const char* p, size_t bytes) {
  const Region* r = FindRegion(run, p);
  if (!r) {
    Report("%s makes an atomic access outside global and shared memory",
           ThreadName(run, g_current->id).c_str());
    return nullptr;
  }
  if (p + bytes > r->end) {
    Report(
        "%s makes a %zu-byte atomic access across the end of %s (%td "
        "byte%s past it)",
        ThreadName(run, g_current->id).c_str(), bytes, Where(*r, p).c_str(),
        p + bytes - r->end, p + bytes - r->end == 1 ? "" : "s");
    return nullptr;
  }
  if (reinterpret_cast<uintptr_t>(p) % bytes != 0) {
    Report("%s makes a misaligned %zu-byte atomic access at %s",
           ThreadName(run, g_current->id).c_str(), bytes, Where(*r, p).c_str());
    return nullptr;
  }
  return r;
}

}  // namespace

// ---- The interface of cuda_model.h ----

const uint3& ThreadIdx() { return g_current->thread_idx; }
const uint3& BlockIdx() { return g_run->block_idx; }
const dim3& BlockDim() { return g_run->block; }
const dim3& GridDim() { return g_run->grid; }

void SyncThreads() {
  ModelCode model;
  GridRun& run = *g_run;
  Thread* t = g_current;
  if (run.exited > 0) {
    Report(
        "barrier not reached by every thread: block (%u, %u, %u) thread "
        "%u waits at __syncthreads after %u threads exited",
        run.block_idx.x, run.block_idx.y, run.block_idx.z, t->linear,
        run.exited);
  }
  if (++run.barrier_arrived < run.threads_per_block) {
    t->state = State::kBarrier;
    Yield();
    return;
  }
  run.barrier_arrived = 0;
  ++run.block_epoch;
  for (uint32_t& e : run.warp_epoch) ++e;
  std::vector<Thread*> waiting;
  for (Thread& o : run.threads) {
    if (o.state == State::kBarrier) waiting.push_back(&o);
  }
  MakeReady(run, waiting);
}

void WarpCollective(Collective kind, unsigned int mask, const void* value,
                    void* result, size_t bytes, int argument, int width) {
  ModelCode model;
  GridRun& run = *g_run;
  Thread* t = g_current;
  const char* name = CollectiveName(kind);
  if (!((mask >> t->lane) & 1)) {
    Report(
        "%s by lane %u of warp %u with the mask 0x%08x, which leaves out "
        "the calling lane",
        name, t->lane, t->warp, mask);
    return;
  }
  unsigned lanes_here = std::min<unsigned>(
      kWarpSize, run.threads_per_block - t->warp * kWarpSize);
  unsigned existing = lanes_here == 32 ? 0xffffffffu : ((1u << lanes_here) - 1);
  if (mask & ~existing) {
    Report("%s with the mask 0x%08x in warp %u, which has only %u threads",
           name, mask, t->warp, lanes_here);
    return;
  }
  if (kind != Collective::kSyncWarp && kind != Collective::kBallot &&
      kind != Collective::kAny && kind != Collective::kAll &&
      (width < 1 || width > kWarpSize || (width & (width - 1)) != 0)) {
    Report("%s with width %d (a power of two up to 32)", name, width);
    return;
  }
  if (bytes > kMaxValueBytes) {
    Report("%s of a %zu-byte value", name, bytes);
    return;
  }
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    if (!((mask >> lane) & 1)) continue;
    if (run.threads[t->warp * kWarpSize + lane].state == State::kDone) {
      Report(
          "lane %u of warp %u does not arrive at %s (mask 0x%08x): it "
          "has exited",
          lane, t->warp, name, mask);
      return;
    }
  }
  std::vector<WarpGroup>& pending = run.groups[t->warp];
  WarpGroup* g = nullptr;
  for (WarpGroup& o : pending) {
    if (o.mask == mask) {
      g = &o;
    } else if (o.mask & mask) {
      Report(
          "warp %u: lane %u calls %s with the mask 0x%08x while lanes "
          "wait in %s with the overlapping mask 0x%08x",
          t->warp, t->lane, name, mask, CollectiveName(o.kind), o.mask);
      return;
    }
  }
  if (!g) {
    pending.emplace_back();
    g = &pending.back();
    g->kind = kind;
    g->mask = mask;
    g->bytes = bytes;
  }
  if (g->kind != kind || g->bytes != bytes) {
    Report(
        "warp %u: lane %u calls %s (%zu bytes) while lanes of the mask "
        "0x%08x wait in %s (%zu bytes)",
        t->warp, t->lane, name, bytes, mask, CollectiveName(g->kind), g->bytes);
    return;
  }
  if (bytes) std::memcpy(g->values[t->lane], value, bytes);
  g->arguments[t->lane] = argument;
  g->widths[t->lane] = width;
  g->arrived |= 1u << t->lane;
  t->result = result;
  if (g->arrived != mask) {
    t->state = State::kWarp;
    Yield();
    return;
  }
  WarpGroup done = *g;
  pending.erase(pending.begin() + (g - pending.data()));
  Complete(run, t->warp, done);
}

void ReportMisuse(const char* message) {
  ModelCode model;
  Report("%s (thread %u)", message, g_current ? g_current->linear : 0u);
}

unsigned int ActiveMask() {
  // CUDA promises no convergence: the smallest answer a GPU may give is
  // the calling lane alone, so that code relying on more fails here as it
  // may fail there.
  return 1u << g_current->lane;
}

void AtomicLoad(const void* address, void* value, size_t bytes) {
  ModelCode model;
  GridRun& run = *g_run;
  if (run.config.order == Order::kRandom && (run.rng() & 1)) {
    // Let another thread run first: the order of atomic updates varies.
    g_current->state = State::kReady;
    run.ready.push_back(g_current);
    Yield();
  }
  if (++run.atomics == run.atomic_limit + 1) {
    Report("%s makes atomic operation %llu, past the limit of %llu",
           ThreadName(run, g_current->id).c_str(),
           static_cast<unsigned long long>(run.atomics),
           static_cast<unsigned long long>(run.atomic_limit));
  }
  const char* p = static_cast<const char*>(address);
  const Region* r = AtomicRegion(run, p, bytes);
  if (!r) return;
  for (size_t i = 0; i < bytes; ++i) {
    CheckCell(run, *g_current, *r, p + i, Access::kAtomicRead);
  }
  std::memcpy(value, address, bytes);
}

void AtomicStore(void* address, const void* old_value, const void* new_value,
                 size_t bytes) {
  ModelCode model;
  GridRun& run = *g_run;
  char* p = static_cast<char*>(address);
  const Region* r = AtomicRegion(run, p, bytes);
  if (!r) return;
  // Only the bytes the update changes are written (a compare-and-swap on a
  // halfword holding a neighbour's byte leaves it as it was).
  const unsigned char* o = static_cast<const unsigned char*>(old_value);
  const unsigned char* n = static_cast<const unsigned char*>(new_value);
  for (size_t i = 0; i < bytes; ++i) {
    if (o[i] == n[i]) continue;
    CheckCell(run, *g_current, *r, p + i, Access::kAtomicWrite);
  }
  if (!r->writable) {
    Report(
        "%s atomically updates %s, which the kernel receives as a "
        "pointer to const",
        ThreadName(run, g_current->id).c_str(), Where(*r, p).c_str());
  }
  std::memcpy(address, new_value, bytes);
}

const char* RunGrid(const LaunchConfig& config, size_t num_args,
                    const bool* const_args, void (*body)(void*),
                    void* context_arg) {
  g_error.clear();
  // Never destroyed (see the end).
  static auto* abandoned = new std::vector<std::unique_ptr<GridRun>>();
  auto launch = std::make_unique<GridRun>();
  GridRun& run = *launch;
  run.config = config;
  run.grid = dim3(config.grid[0], config.grid[1], config.grid[2]);
  run.block = dim3(config.block[0], config.block[1], config.block[2]);
  run.rng.seed(config.seed);
  if (const char* limit = std::getenv("IXA_CUDA_MODEL_ATOMIC_LIMIT")) {
    run.atomic_limit = std::strtoull(limit, nullptr, 10);
  }
  const uint64_t tpb = uint64_t{run.block.x} * run.block.y * run.block.z;
  const uint64_t blocks = uint64_t{run.grid.x} * run.grid.y * run.grid.z;
  if (num_args != config.num_buffers) {
    Report("the kernel takes %zu buffers; the launch passes %zu", num_args,
           config.num_buffers);
    return g_error.c_str();
  }
  if (tpb == 0 || tpb > kMaxThreadsPerBlock || blocks == 0 ||
      run.block.z > 64 || run.grid.y > 65535 || run.grid.z > 65535 ||
      blocks * tpb >= 0xffffffffu) {
    Report("invalid launch: blocks (%u, %u, %u) of threads (%u, %u, %u)",
           run.grid.x, run.grid.y, run.grid.z, run.block.x, run.block.y,
           run.block.z);
    return g_error.c_str();
  }
  run.threads_per_block = static_cast<unsigned>(tpb);
  run.warps = (run.threads_per_block + kWarpSize - 1) / kWarpSize;
  run.threads.resize(run.threads_per_block);
  run.warp_epoch.assign(run.warps, 0);
  run.groups.resize(run.warps);
  // Buffers: an argument's memory is writable when some argument passes it
  // as a pointer to non-const; two arguments may share memory only as an
  // in-place output and its input.
  for (size_t i = 0; i < config.num_buffers; ++i) {
    const char* b = static_cast<const char*>(config.buffers[i].data);
    const char* e = b + config.buffers[i].bytes;
    bool found = false;
    for (Region& r : run.regions) {
      if (r.begin == b && r.end == e) {
        r.writable = r.writable || !const_args[i];
        found = true;
      } else if (b < r.end && r.begin < e) {
        Report("buffers %d and %zu overlap in part", r.buffer, i);
        return g_error.c_str();
      }
    }
    if (found || b == e) continue;
    Region r;
    r.begin = b;
    r.end = e;
    r.buffer = static_cast<int>(i);
    r.writable = !const_args[i];
    run.regions.push_back(r);
  }
  for (Region& r : run.regions) {
    r.cells = MapCells(r.end - r.begin);
    if (!r.cells) Report("no memory for the shadow of buffer %d", r.buffer);
  }
  if (__start_ixa_cuda_shared && __stop_ixa_cuda_shared &&
      +__stop_ixa_cuda_shared > +__start_ixa_cuda_shared) {
    run.shared.begin = __start_ixa_cuda_shared;
    run.shared.end = __stop_ixa_cuda_shared;
    run.shared.writable = true;
    run.shared.cells = MapCells(run.shared.end - run.shared.begin);
  }
  if (!g_stacks) {
    g_stacks_bytes = kMaxThreadsPerBlock * (kStackBytes + kPageBytes);
    void* p = mmap(nullptr, g_stacks_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      Report("no memory for the thread stacks");
      return g_error.c_str();
    }
    g_stacks = static_cast<char*>(p);
    for (int i = 0; i < kMaxThreadsPerBlock; ++i) {
      mprotect(g_stacks + i * (kStackBytes + kPageBytes), kPageBytes,
               PROT_NONE);
    }
  }
  std::vector<uint32_t> order(blocks);
  for (uint64_t b = 0; b < blocks; ++b) order[b] = static_cast<uint32_t>(b);
  if (config.order == Order::kReverse) std::reverse(order.begin(), order.end());
  if (config.order == Order::kRandom)
    std::shuffle(order.begin(), order.end(), run.rng);
  g_run = &run;
  for (uint32_t b : order) {
    if (!g_error.empty()) break;
    RunBlock(run, body, context_arg, b);
  }
  g_run = nullptr;
  for (Region& r : run.regions) UnmapCells(r.cells, r.end - r.begin);
  UnmapCells(run.shared.cells, run.shared.end - run.shared.begin);
  if (!g_error.empty()) {
    // Threads stopped inside the kernel stay suspended: destroying their
    // fibers would unwind kernel frames. The model runs in a child process
    // that exits after reporting.
    abandoned->push_back(std::move(launch));
    return g_error.c_str();
  }
  return nullptr;
}

}  // namespace ixa_cuda_model

// ---- ThreadSanitizer's instrumentation hooks ----
// The kernel units are compiled with -fsanitize=thread and linked without
// its runtime: these definitions receive every access they make.

using ixa_cuda_model::Access;

extern "C" {

void __tsan_init() {}
void __tsan_func_entry(void*) {}
void __tsan_func_exit() {}
void __tsan_ignore_thread_begin() {}
void __tsan_ignore_thread_end() {}
void __tsan_vptr_update(void**, void*) {}
void __tsan_vptr_read(void**) {}

#define IXA_CUDA_MODEL_HOOKS(N)                            \
  void __tsan_read##N(void* p) {                           \
    ixa_cuda_model::OnAccess(p, N, Access::kRead, true);   \
  }                                                        \
  void __tsan_write##N(void* p) {                          \
    ixa_cuda_model::OnAccess(p, N, Access::kWrite, true);  \
  }                                                        \
  void __tsan_unaligned_read##N(void* p) {                 \
    ixa_cuda_model::OnAccess(p, N, Access::kRead, false);  \
  }                                                        \
  void __tsan_unaligned_write##N(void* p) {                \
    ixa_cuda_model::OnAccess(p, N, Access::kWrite, false); \
  }                                                        \
  void __tsan_volatile_read##N(void* p) {                  \
    ixa_cuda_model::OnAccess(p, N, Access::kRead, true);   \
  }                                                        \
  void __tsan_volatile_write##N(void* p) {                 \
    ixa_cuda_model::OnAccess(p, N, Access::kWrite, true);  \
  }                                                        \
  void __tsan_unaligned_volatile_read##N(void* p) {        \
    ixa_cuda_model::OnAccess(p, N, Access::kRead, false);  \
  }                                                        \
  void __tsan_unaligned_volatile_write##N(void* p) {       \
    ixa_cuda_model::OnAccess(p, N, Access::kWrite, false); \
  }
IXA_CUDA_MODEL_HOOKS(1)
IXA_CUDA_MODEL_HOOKS(2)
IXA_CUDA_MODEL_HOOKS(4)
IXA_CUDA_MODEL_HOOKS(8)
IXA_CUDA_MODEL_HOOKS(16)

void __tsan_read_range(void* p, unsigned long size) {
  ixa_cuda_model::OnAccess(p, size, Access::kRead, false);
}
void __tsan_write_range(void* p, unsigned long size) {
  ixa_cuda_model::OnAccess(p, size, Access::kWrite, false);
}

// memcpy, memmove and memset are reported by cuda_model_memory.cc.
void ixa_cuda_model_on_copy(const void* source, void* destination,
                            size_t bytes) {
  if (source) ixa_cuda_model::OnAccess(source, bytes, Access::kRead, false);
  ixa_cuda_model::OnAccess(destination, bytes, Access::kWrite, false);
}

}  // extern "C"
