// Framebuffer to PNG: reads the back buffer of the current GL context (after everything is
// drawn, before the swap), flips the rows (GL's origin is bottom-left) and writes an RGB PNG.
#ifndef SALTATION_VIEWER_SCREENSHOT_H_
#define SALTATION_VIEWER_SCREENSHOT_H_

#include <string>

namespace saltation_viewer {

// Returns an error message, or "" when the file was written.
std::string SaveFramebufferPng(const std::string& path, int width, int height);

// A file name in the current directory that does not exist yet: saltation-screenshot-N.png
std::string NextScreenshotName();

}  // namespace saltation_viewer

#endif  // SALTATION_VIEWER_SCREENSHOT_H_
