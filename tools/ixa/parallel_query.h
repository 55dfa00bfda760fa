// `ixa query --jobs N`: one batch of JSON Lines requests served on N
// threads, the responses written in request order.
#ifndef IXA_TOOLS_IXA_PARALLEL_QUERY_H_
#define IXA_TOOLS_IXA_PARALLEL_QUERY_H_

#include <functional>
#include <istream>
#include <ostream>
#include <string>
#include <string_view>

namespace ixa::cli {

// Answers one request line (without its newline) on worker `worker`
// (0 <= worker < jobs): appends the response line and its '\n' to `*out`.
// `number` is the line's 1-based number in the input (blank lines count).
// Each worker must keep its own state: calls for different workers run
// concurrently, calls for one worker never do.
using LineAnswerer = std::function<void(
    int worker, size_t number, std::string_view line, std::string* out)>;

// Reads lines from `in` (a trailing '\r' is dropped; lines of only spaces
// and tabs are skipped), answers each with `answer` and writes the
// response lines to `out` in input order.
//   jobs <= 1: one line at a time on this thread; `out` is flushed before
//     waiting for more input.
//   jobs > 1:  `jobs` workers (this thread and jobs - 1 others) each read a
//     chunk of lines in turn (the lines already there, at most a few
//     dozen), answer it, and write the chunks that are ready in order; at
//     most a bounded number of chunks are in flight. `out` is flushed
//     whenever every line read so far has been written.
// Either way an interactive client gets each answer without sending more
// input, and `in` is read through its stream buffer in blocks (a stream
// tied to `in` is not flushed by the reads).
// An exception thrown by `answer` stops the batch and is rethrown here.
void ServeLines(std::istream& in, std::ostream& out, int jobs,
                const LineAnswerer& answer);

}  // namespace ixa::cli

#endif  // IXA_TOOLS_IXA_PARALLEL_QUERY_H_
