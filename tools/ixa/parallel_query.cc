#include "tools/ixa/parallel_query.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <streambuf>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace ixa::cli {

namespace {

// Splits the input into request lines as std::getline would (a last line
// without '\n' counts), drops one trailing '\r' and skips lines of only
// spaces and tabs. It reads the stream buffer in blocks: no istream sentry
// per line (so no flush of a tied stream either; callers flush themselves
// before they may block) and no scan of the text twice.
class LineReader {
 public:
  enum class Status { kLine, kEnd, kWouldBlock };

  explicit LineReader(std::istream& in)
      : in_(*in.rdbuf()),
        buf_(std::make_unique_for_overwrite<char[]>(kInitialSize)),
        size_(kInitialSize) {}

  // The next request line, as a view into the reader's buffer that stays
  // valid until the next call (no copy per line). With `may_block` false,
  // kWouldBlock instead of waiting for input that has not arrived yet: an
  // interactive client waits for its answers first.
  // `*number` is the line's 1-based number in the input.
  Status Next(std::string_view* line, size_t* number, bool may_block) {
    while (true) {
      const char* begin = buf_.get() + pos_;
      const char* scan = buf_.get() + scanned_;
      const char* end = buf_.get() + end_;
      const char* newline =
          static_cast<const char*>(std::memchr(scan, '\n', end - scan));
      if (newline == nullptr && !eof_) {
        scanned_ = end_;  // a long line is not scanned again after a Fill
        if (!may_block && available_ <= 0 && in_.in_avail() <= 0) {
          return Status::kWouldBlock;
        }
        Fill();
        continue;
      }
      if (newline == nullptr && begin == end) return Status::kEnd;
      const char* stop = newline != nullptr ? newline : end;
      pos_ = scanned_ = (stop - buf_.get()) + (newline != nullptr ? 1 : 0);
      ++lines_;
      if (stop != begin && stop[-1] == '\r') --stop;
      bool blank = std::all_of(begin, stop,
                               [](char c) { return c == ' ' || c == '\t'; });
      if (blank) continue;
      *line = std::string_view(begin, static_cast<size_t>(stop - begin));
      *number = lines_;
      return Status::kLine;
    }
  }

 private:
  // Not zero-filled: the reads write what is used (and a short batch
  // touches only the pages its text needs).
  static constexpr size_t kInitialSize = size_t{1} << 16;

  void Fill() {
    if (pos_ > 0) {
      std::memmove(buf_.get(), buf_.get() + pos_, end_ - pos_);
      end_ -= pos_;
      scanned_ -= pos_;
      pos_ = 0;
    }
    if (end_ == size_) {  // a long line
      auto bigger = std::make_unique_for_overwrite<char[]>(2 * size_);
      std::memcpy(bigger.get(), buf_.get(), end_);
      buf_ = std::move(bigger);
      size_ *= 2;
    }
    const std::streamsize room = static_cast<std::streamsize>(size_ - end_);
    if (available_ <= 0) available_ = in_.in_avail();
    if (available_ <= 0) {
      // Nothing known to be there: wait for a byte (or the end).
      if (std::streambuf::traits_type::eq_int_type(
              in_.sgetc(), std::streambuf::traits_type::eof())) {
        eof_ = true;
        return;
      }
      available_ = std::max<std::streamsize>(in_.in_avail(), 1);
    }
    // A file says how much is left: it is read in blocks of the buffer's
    // size, straight into it (one read, and no ioctl, per block).
    const std::streamsize got =
        in_.sgetn(buf_.get() + end_, std::min(available_, room));
    if (got <= 0) {  // the end came sooner than announced
      available_ = 0;
      eof_ = true;
      return;
    }
    end_ += static_cast<size_t>(got);
    available_ -= got;
  }

  std::streambuf& in_;
  std::unique_ptr<char[]> buf_;
  size_t size_;         // of buf_
  size_t pos_ = 0;      // start of the next line
  size_t scanned_ = 0;  // [pos_, scanned_) has no '\n'
  size_t end_ = 0;      // end of the text read
  size_t lines_ = 0;    // lines taken so far, blank ones too
  // Bytes the stream said it holds and that are not read yet: they come
  // without blocking, and without asking the stream again.
  std::streamsize available_ = 0;
  bool eof_ = false;
};

// Responses are collected in one text and written in blocks of about this
// size (and whenever the client may be waiting for them).
constexpr size_t kOutputBlock = size_t{1} << 14;

void Write(std::ostream& out, std::string* text) {
  out.write(text->data(), static_cast<std::streamsize>(text->size()));
  text->clear();
}

void ServeSerially(std::istream& in, std::ostream& out,
                   const LineAnswerer& answer) {
  LineReader reader(in);
  std::string_view line;
  size_t number = 0;
  std::string text;
  text.reserve(kOutputBlock + 4096);
  while (true) {
    LineReader::Status status =
        reader.Next(&line, &number, /*may_block=*/false);
    if (status == LineReader::Status::kWouldBlock) {
      Write(out, &text);
      out.flush();  // the client may be waiting for the answers so far
      status = reader.Next(&line, &number, /*may_block=*/true);
    }
    if (status == LineReader::Status::kEnd) break;
    answer(0, number, line, &text);
    if (text.size() >= kOutputBlock) Write(out, &text);
  }
  Write(out, &text);
  out.flush();
}

// A worker reads as many lines at once as it answers in about
// kChunkNanos (measured on its previous chunk), at most kMaxChunkLines:
// a lock per chunk rather than per line, yet chunks of slow requests small
// enough that the workers stay balanced up to the end of a short batch.
constexpr int64_t kChunkNanos = 200'000;
constexpr size_t kMaxChunkLines = 64;
// Chunks read but not yet written, at most, per worker (bounds memory when
// one slow request holds back the output of the others).
constexpr size_t kChunksInFlightPerWorker = 8;

// Empties a buffer that is reused, and gives back the memory of a huge one.
void Recycle(std::string* text) {
  if (text->capacity() > (size_t{1} << 20)) {
    std::string().swap(*text);
  } else {
    text->clear();
  }
}

// No reader or writer thread: each worker reads a chunk of lines under
// in_mu_, answers it into its own output text, parks the text by chunk
// number under out_mu_, and whichever worker parks the next chunk to write
// writes every consecutive chunk ready. Lines and responses are allocated
// and freed on the thread that answers them.
class ParallelServer {
 public:
  ParallelServer(std::istream& in, std::ostream& out, int jobs,
                 const LineAnswerer& answer)
      : reader_(in),
        out_(out),
        answer_(answer),
        max_in_flight_(kChunksInFlightPerWorker * jobs),
        parked_(max_in_flight_),
        ready_(max_in_flight_, false) {
    for (int w = 1; w < jobs; ++w) {
      threads_.emplace_back([this, w] { Work(w); });
    }
  }

  void Run() {
    Work(0);
    for (std::thread& t : threads_) t.join();
    if (failure_) std::rethrow_exception(failure_);
    out_.flush();
  }

 private:
  void Work(int worker) {
    std::vector<std::string> lines(kMaxChunkLines);
    std::vector<size_t> numbers(kMaxChunkLines);
    std::string text;
    // Lines in the next chunk; the cost of the first one is unknown.
    size_t want = 1;
    try {
      while (true) {
        size_t count = 0, number = 0;
        if (!ReadChunk(&lines, &numbers, want, &count, &number)) return;
        auto start = std::chrono::steady_clock::now();
        text.clear();
        for (size_t i = 0; i < count; ++i) {
          answer_(worker, numbers[i], lines[i], &text);
          Recycle(&lines[i]);
        }
        int64_t nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::steady_clock::now() - start)
                            .count();
        want = std::clamp<size_t>(
            count * kChunkNanos /
                static_cast<size_t>(std::max<int64_t>(nanos, 1)),
            1, kMaxChunkLines);
        Park(number, &text);
      }
    } catch (...) {
      Stop(std::current_exception());
    }
  }

  // The next chunk: the first line may wait for input, the others are
  // taken only while input is already there. False at the end or on stop.
  bool ReadChunk(std::vector<std::string>* lines, std::vector<size_t>* numbers,
                 size_t want, size_t* count, size_t* number) {
    std::lock_guard<std::mutex> in_lock(in_mu_);
    {
      // Lock order: in_mu_ before out_mu_ (Park takes only out_mu_).
      std::unique_lock<std::mutex> out_lock(out_mu_);
      space_.wait(out_lock, [this] {
        return stopped_ || read_ - written_ < max_in_flight_;
      });
      if (stopped_) return false;
    }
    if (end_of_input_) return false;
    size_t n = 0;
    while (n < want) {
      std::string_view line;
      LineReader::Status status = reader_.Next(&line, &(*numbers)[n], n == 0);
      if (status == LineReader::Status::kLine) {
        (*lines)[n++].assign(line);  // the reader's buffer moves on
        continue;
      }
      if (status == LineReader::Status::kEnd) end_of_input_ = true;
      break;
    }
    if (n == 0) return false;
    *count = n;
    *number = read_.load(std::memory_order_relaxed);
    read_.store(*number + 1);
    return true;
  }

  // Parks the output of chunk `number` (swapping `text` with a reused
  // buffer) and writes what is ready in order unless another worker is
  // already writing: that one picks this chunk up before it stops.
  void Park(size_t number, std::string* text) {
    std::unique_lock<std::mutex> lock(out_mu_);
    size_t slot = number % max_in_flight_;
    parked_[slot].swap(*text);
    ready_[slot] = true;
    if (writing_) return;
    writing_ = true;
    while (!stopped_) {
      size_t first = written_, last = written_;
      while (last - first < max_in_flight_ && ready_[last % max_in_flight_]) {
        ++last;
      }
      if (first == last) {
        // Caught up with the input: the client may be waiting for this.
        if (written_ != read_.load() || flushed_ == written_) break;
        flushed_ = written_;
        lock.unlock();
        out_.flush();
        lock.lock();
        continue;  // re-check: a chunk may have been parked meanwhile
      }
      // Outside the lock: these slots are not reused before written_ moves.
      lock.unlock();
      for (size_t n = first; n < last; ++n) {
        const std::string& done = parked_[n % max_in_flight_];
        out_.write(done.data(), static_cast<std::streamsize>(done.size()));
      }
      lock.lock();
      for (size_t n = first; n < last; ++n) {
        ready_[n % max_in_flight_] = false;
        Recycle(&parked_[n % max_in_flight_]);
      }
      written_ = last;
      space_.notify_all();
    }
    writing_ = false;
  }

  void Stop(std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(out_mu_);
    if (!failure_) failure_ = e;
    stopped_ = true;
    space_.notify_all();
  }

  // Under in_mu_:
  std::mutex in_mu_;
  LineReader reader_;
  bool end_of_input_ = false;
  std::atomic<size_t> read_ = 0;  // chunks read; also read under out_mu_

  // Under out_mu_:
  std::mutex out_mu_;
  std::condition_variable space_;  // written_ moved or stopped_
  std::ostream& out_;
  const LineAnswerer& answer_;
  const size_t max_in_flight_;
  std::vector<std::string> parked_;  // ring by chunk number
  std::vector<bool> ready_;
  size_t written_ = 0;  // chunks written
  size_t flushed_ = 0;  // written_ at the last flush
  bool writing_ = false, stopped_ = false;
  std::exception_ptr failure_;

  std::vector<std::thread> threads_;
};

}  // namespace

void ServeLines(std::istream& in, std::ostream& out, int jobs,
                const LineAnswerer& answer) {
  if (jobs <= 1) {
    ServeSerially(in, out, answer);
    return;
  }
  ParallelServer server(in, out, jobs, answer);
  server.Run();
}

}  // namespace ixa::cli
