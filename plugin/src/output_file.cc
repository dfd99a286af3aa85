#include "saltation/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace saltation {

OutputFile::~OutputFile() {
  if (fd_ < 0) return;
  ::close(fd_);
  if (regular_ && size_ == 0) ::unlink(path_.c_str());
}

void OutputFile::Open(const std::string& path) {
  if (fd_ >= 0) Close();
  path_ = path;
  error_.clear();
  size_ = 0;
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw OutputError("cannot write '" + path + "': " + std::strerror(errno));
  struct stat st;
  regular_ = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
}

void OutputFile::WriteLine(const std::string& text) { Append(text + "\n"); }

void OutputFile::WriteLines(const std::string& text) {
  if (text.empty()) return;
  if (text.back() != '\n') throw Error("OutputFile::WriteLines: the text does not end in a newline");
  Append(text);
}

void OutputFile::Append(const std::string& text) {
  if (!error_.empty()) throw OutputError(error_);
  if (fd_ < 0) throw OutputError("could not write '" + path_ + "': the file is not open");
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    const int reason = n < 0 ? errno : EIO;  // write(2) returning 0 for a non-empty buffer: no progress
    // back to the last whole line (a regular file; a device or a pipe keeps what it got)
    if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0 && errno != EINVAL) {
      error_ = "could not write '" + path_ + "': " + std::strerror(reason) +
               " (and could not truncate it back to its last whole line: " + std::strerror(errno) + ")";
    } else {
      error_ = "could not write '" + path_ + "': " + std::strerror(reason);
    }
    ::close(fd_);
    fd_ = -1;
    throw OutputError(error_);
  }
  size_ += static_cast<long long>(text.size());
}

void OutputFile::Close() {
  if (fd_ < 0) return;
  const int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0 && errno != EINTR) {
    error_ = "could not write '" + path_ + "': " + std::strerror(errno);
    throw OutputError(error_);
  }
}

}  // namespace saltation
