#include "tools/ixa/parallel_query.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace ixa::cli {

namespace {

// Reads the next request line; false at the end of the input.
bool NextRequestLine(std::istream& in, std::string* line) {
  while (std::getline(in, *line)) {
    if (!line->empty() && line->back() == '\r') line->pop_back();
    if (line->find_first_not_of(" \t") != std::string::npos) return true;
  }
  return false;
}

void ServeSerially(std::istream& in, std::ostream& out,
                   const LineAnswerer& answer) {
  std::string line, response;
  while (NextRequestLine(in, &line)) {
    response = answer(0, line);
    response += '\n';
    out.write(response.data(), static_cast<std::streamsize>(response.size()));
  }
  out.flush();
}

// Lines read but not yet written, at most (bounds memory on a long batch);
// the reader resumes once half of them are written, not after every line.
constexpr size_t kMaxInFlight = 4096;
// Lines the reader queues at once, and a worker takes at once, at most:
// one lock and one wake-up per chunk rather than per line.
constexpr size_t kReadChunk = 64;
constexpr size_t kWorkChunk = 16;

class ParallelServer {
 public:
  ParallelServer(std::ostream& out, int jobs, const LineAnswerer& answer)
      : out_(out), jobs_(jobs), answer_(answer), responses_(kMaxInFlight) {
    for (int w = 0; w < jobs; ++w) {
      workers_.emplace_back([this, w] { Work(w); });
    }
    writer_ = std::thread([this] { Write(); });
  }

  // Reads every line of `in` into the queue, then waits for the answers.
  void Run(std::istream& in) {
    std::vector<std::string> chunk;
    bool more = true;
    while (more) {
      size_t room;
      {
        std::unique_lock<std::mutex> lock(mu_);
        if (read_ - written_ >= kMaxInFlight) {
          reader_waiting_ = true;
          space_.wait(lock, [this] {
            return stopped_ || read_ - written_ <= kMaxInFlight / 2;
          });
          reader_waiting_ = false;
        }
        if (stopped_) break;
        room = std::min(kReadChunk, kMaxInFlight - (read_ - written_));
      }
      // Read outside the lock (stdin may block for an interactive client),
      // a chunk while lines are already buffered, one line otherwise.
      chunk.clear();
      std::string line;
      while (chunk.size() < room) {
        if (!NextRequestLine(in, &line)) {
          more = false;
          break;
        }
        chunk.push_back(std::move(line));
        if (in.rdbuf()->in_avail() <= 0) break;
      }
      if (chunk.empty()) break;
      std::lock_guard<std::mutex> lock(mu_);
      for (std::string& l : chunk) tasks_.emplace_back(read_++, std::move(l));
      task_ready_.notify_all();
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      end_of_input_ = true;
    }
    task_ready_.notify_all();
    response_ready_.notify_all();
    for (std::thread& t : workers_) t.join();
    writer_.join();
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  void Work(int worker) {
    std::vector<std::pair<size_t, std::string>> chunk;
    while (true) {
      chunk.clear();
      {
        std::unique_lock<std::mutex> lock(mu_);
        task_ready_.wait(lock, [this] {
          return stopped_ || end_of_input_ || !tasks_.empty();
        });
        if (stopped_ || tasks_.empty()) return;
        // A share of what is queued, so that every worker gets some.
        size_t n =
            std::clamp<size_t>(tasks_.size() / (2 * jobs_), 1, kWorkChunk);
        for (size_t i = 0; i < n; ++i) {
          chunk.push_back(std::move(tasks_.front()));
          tasks_.pop_front();
        }
      }
      for (auto& [number, line] : chunk) {
        try {
          line = answer_(worker, line);  // the response replaces the line
        } catch (...) {
          Stop(std::current_exception());
          return;
        }
      }
      std::lock_guard<std::mutex> lock(mu_);
      bool next_done = false;
      for (auto& [number, response] : chunk) {
        next_done |= number == written_;
        responses_[number % kMaxInFlight] = std::move(response);
      }
      if (next_done) response_ready_.notify_one();
    }
  }

  void Write() {
    std::string text;
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      // Everything ready in order, written outside the lock.
      text.clear();
      while (true) {
        auto& slot = responses_[written_ % kMaxInFlight];
        if (!slot) break;
        text += *slot;
        text += '\n';
        slot.reset();
        ++written_;
      }
      if (!text.empty()) {
        if (reader_waiting_ && read_ - written_ <= kMaxInFlight / 2) {
          space_.notify_one();
        }
        lock.unlock();
        out_.write(text.data(), static_cast<std::streamsize>(text.size()));
        lock.lock();
        continue;
      }
      if (stopped_ || (end_of_input_ && written_ == read_)) break;
      if (written_ == read_ && flushed_ != written_) {
        // Caught up with the input: the client may be waiting for this.
        flushed_ = written_;
        lock.unlock();
        out_.flush();
        lock.lock();
        continue;  // re-check: a line may have come in meanwhile
      }
      response_ready_.wait(lock, [this] {
        return stopped_ || responses_[written_ % kMaxInFlight].has_value() ||
               (end_of_input_ && written_ == read_);
      });
    }
    lock.unlock();
    out_.flush();
  }

  void Stop(std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!failure_) failure_ = e;
    stopped_ = true;
    task_ready_.notify_all();
    response_ready_.notify_all();
    space_.notify_all();
  }

  std::ostream& out_;
  const int jobs_;
  const LineAnswerer& answer_;
  std::mutex mu_;
  std::condition_variable task_ready_, response_ready_, space_;
  std::deque<std::pair<size_t, std::string>> tasks_;
  std::vector<std::optional<std::string>> responses_;  // ring by line number
  size_t read_ = 0, written_ = 0;
  size_t flushed_ = 0;  // written_ at the last flush
  bool end_of_input_ = false, stopped_ = false, reader_waiting_ = false;
  std::exception_ptr failure_;
  std::vector<std::thread> workers_;
  std::thread writer_;
};

}  // namespace

void ServeLines(std::istream& in, std::ostream& out, int jobs,
                const LineAnswerer& answer) {
  if (jobs <= 1) {
    ServeSerially(in, out, answer);
    return;
  }
  // The reader and the writer are different threads: reading must not
  // flush `out` (cin is tied to cout); the writer flushes instead.
  std::ostream* tied = in.tie(nullptr);
  ParallelServer server(out, jobs, answer);
  server.Run(in);
  in.tie(tied);
}

}  // namespace ixa::cli
