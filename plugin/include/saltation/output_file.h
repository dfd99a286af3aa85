// One output file of whole lines: every file the command line and the viewer's recorder write
// (JSON Lines, CSV, Φ, compare and floquet JSON) goes through it.
//
// Contract: the file holds whole lines only, always.
//   - Open(path) creates or truncates `path` at once, so an unwritable path fails before any work
//     is done (OutputError "cannot write 'PATH': <OS reason>").
//   - WriteLine(text) appends text + '\n' with write(2) (looping over short writes), straight to
//     the file: a reader (tail -f, a killed run) sees each line when WriteLine returns, never part
//     of one. WriteLines(text) appends a block of whole lines ('\n'-terminated) the same way.
//   - When a write fails (disk full, file too large, I/O error), the file is truncated back to the
//     end of the last whole line written (ftruncate; a device or pipe cannot be truncated and keeps
//     what it got) and OutputError "could not write 'PATH': <strerror>" is thrown; the file is then
//     closed and every later write throws the same error.
//   - Close() closes it (close(2)'s error is reported like a write's). The destructor closes
//     silently, and removes the file when it is a regular file that got no line: a run that fails
//     before writing anything (the OutputFile unwinds unclosed) leaves no empty file behind.
// No temporary file and no rename: the file is the destination from the start, so a run that
// fails halfway leaves everything it wrote before the failure, in whole lines.
#ifndef SALTATION_OUTPUT_FILE_H_
#define SALTATION_OUTPUT_FILE_H_

#include <string>

#include "saltation/errors.h"

namespace saltation {

// a file that could not be opened or written; the message names the path and the OS reason
class OutputError : public Error {
 public:
  using Error::Error;
};

class OutputFile {
 public:
  OutputFile() = default;
  explicit OutputFile(const std::string& path) { Open(path); }
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // creates or truncates path (mode 0644 before the umask); closes a file already open
  void Open(const std::string& path);
  bool is_open() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }
  // bytes of whole lines in the file
  long long size() const { return size_; }

  // appends text and a newline (text itself must not end in one)
  void WriteLine(const std::string& text);
  // appends text, which must be empty or end in '\n' (a block of whole lines)
  void WriteLines(const std::string& text);
  void Close();

 private:
  void Append(const std::string& text);
  int fd_ = -1;
  std::string path_;
  std::string error_;  // the first failure, thrown again by later writes
  long long size_ = 0;
  bool regular_ = false;  // a regular file (not a device or a pipe): truncated back, removed if unused
};

}  // namespace saltation

#endif  // SALTATION_OUTPUT_FILE_H_
