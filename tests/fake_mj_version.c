/* Preloaded (LD_PRELOAD) by the version-check test: an mj_version() that reports another MuJoCo,
   as a program would see it if it loaded a libmujoco other than the one it was built against. */
int mj_version(void) { return 3003000; }
const char* mj_versionString(void) { return "3.3.0"; }
