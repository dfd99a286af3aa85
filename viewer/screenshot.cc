#include "screenshot.h"

#include <GL/gl.h>
#include <stb_image_write.h>  // stbi_write_png is compiled into libstb
#include <unistd.h>

#include <cstring>
#include <vector>

namespace saltation_viewer {

std::string SaveFramebufferPng(const std::string& path, int width, int height) {
  if (width <= 0 || height <= 0) return "empty framebuffer";
  std::vector<unsigned char> pixels(static_cast<size_t>(width) * height * 3);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  if (glGetError() != GL_NO_ERROR) return "glReadPixels failed";

  // bottom-left origin → top-left
  const size_t row = static_cast<size_t>(width) * 3;
  std::vector<unsigned char> flipped(pixels.size());
  for (int y = 0; y < height; y++) {
    std::memcpy(&flipped[y * row], &pixels[(height - 1 - y) * row], row);
  }
  if (!stbi_write_png(path.c_str(), width, height, 3, flipped.data(), static_cast<int>(row))) {
    return "cannot write '" + path + "'";
  }
  return "";
}

std::string NextScreenshotName() {
  for (int i = 1;; i++) {
    const std::string name = "saltation-screenshot-" + std::to_string(i) + ".png";
    if (access(name.c_str(), F_OK) != 0) return name;
  }
}

}  // namespace saltation_viewer
