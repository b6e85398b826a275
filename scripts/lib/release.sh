# The default torch release and the folders that go with a release: the one place the scripts read
# them (sourced by scripts/setup, test, fuzz, bench, bench-discovery and bench-reference).
# MMDIFF_TORCH picks another release: its venv link is .venv-<version> and its build
# build-<version>; the default's are .venv and build/.
MMDIFF_DEFAULT_TORCH=2.15.0
MMDIFF_RELEASE=${MMDIFF_TORCH:-$MMDIFF_DEFAULT_TORCH}
if [ "$MMDIFF_RELEASE" = "$MMDIFF_DEFAULT_TORCH" ]; then
  MMDIFF_BUILD_DIR=build
  MMDIFF_VENV_LINK=.venv
else
  MMDIFF_BUILD_DIR=build-$MMDIFF_RELEASE
  MMDIFF_VENV_LINK=.venv-$MMDIFF_RELEASE
fi
