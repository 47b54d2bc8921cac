# Developer tasks for the fgseq package.
#   make deps       install what make check needs and is missing (tools/install-deps.sh check)
#   make deps-demo  install what make demo needs: the hard dependencies only (install-deps.sh demo)
#   make fresh      the fresh-machine path with CRAN installs hidden (tools/check-fresh.sh)
#   make document   regenerate NAMESPACE and man/ with roxygen2
#   make install    install the package from this directory
#   make install-debug  the same, keeping the debug information (FGSEQ_DEBUG_FLAGS = -g, see src/Makevars,
#                   through a temporary R_MAKEVARS_USER: ~/.R/Makevars is not read then)
#   make demo       run inst/scripts/heart-demo.R; output and figure in demo-output/
#   make readme-figure  as demo, and also refresh man/figures/README-heart-curves.png
#   make check      R CMD build + R CMD check --no-manual; fails on ERROR or WARNING
#   make test       run the testthat suite against the installed package
#   make test-core  compile and run the C++ core's own tests (tests/cpp: a file per header or as tests/cpp/headers.txt maps it; no R involved)
#   make check-asan the core test, the test suite and tools/fuzz.R under ASan + UBSan (tools/check-asan.sh)
#   make bench      bench/bench-linear.R (BENCH_N=20000 for a quicker run)
#   make site       the pkgdown reference site in docs/ (_pkgdown.yml; not committed), from the installed package
#   make site-check tools/test-check-site.R (the checker fails on a broken page), then tools/check-site.R
#                   on docs/: every page in headless Chromium, internal links, images; screenshots in site-check/
#   make clean

SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c

R       ?= R
RSCRIPT ?= Rscript
PKG     := fgseq
VERSION := $(shell sed -n 's/^Version:[[:space:]]*//p' DESCRIPTION)
TARBALL := $(PKG)_$(VERSION).tar.gz
CHECKDIR := $(PKG).Rcheck
DEMO_DIR ?= demo-output
# The package's C++ units compile side by side: R CMD INSTALL, build and check run their make with as
# many jobs as the machine has cores (at most 5: there are five units).
JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ "$$n" -gt 5 ] && n=5; echo $$n)
R_MAKE = MAKEFLAGS=-j$(JOBS)
BENCH_N ?=

# Without pandoc the vignette cannot be built: build and check without it then. Recursively expanded
# (=, not :=): the test runs when the check recipe runs, after make deps has installed pandoc, not when
# make reads this file.
HAVE_PANDOC = $(shell command -v pandoc >/dev/null 2>&1 && echo yes)
BUILD_FLAGS ?= $(if $(HAVE_PANDOC),,--no-build-vignettes)
CHECK_FLAGS ?= --no-manual $(if $(HAVE_PANDOC),,--ignore-vignettes)

.PHONY: all deps deps-demo fresh document install install-debug demo readme-figure check test test-core check-asan bench site site-check clean

all: check

deps:
	bash tools/install-deps.sh check

deps-demo:
	bash tools/install-deps.sh demo

fresh:
	bash tools/check-fresh.sh

document:
	$(RSCRIPT) -e 'roxygen2::roxygenise()'

# The compiler's messages (Eigen's headers are chatty) go to install.log, shown only on failure.
install:
	@echo "$(R_MAKE) $(R) CMD INSTALL --preclean . (log: install.log)"
	@$(R_MAKE) $(R) CMD INSTALL --preclean . > install.log 2>&1 || { cat install.log; exit 1; }

install-debug:
	@f=$$(mktemp); echo 'FGSEQ_DEBUG_FLAGS = -g' > "$$f"; \
	echo "$(R_MAKE) R_MAKEVARS_USER=$$f $(R) CMD INSTALL --preclean . (FGSEQ_DEBUG_FLAGS = -g; log: install.log)"; \
	$(R_MAKE) R_MAKEVARS_USER="$$f" $(R) CMD INSTALL --preclean . > install.log 2>&1 || { cat install.log; rm -f "$$f"; exit 1; }; \
	rm -f "$$f"

demo: deps-demo install
	mkdir -p $(DEMO_DIR)
	$(RSCRIPT) inst/scripts/heart-demo.R $(DEMO_DIR) | tee $(DEMO_DIR)/heart-demo.txt

readme-figure: deps-demo install
	mkdir -p $(DEMO_DIR)
	$(RSCRIPT) inst/scripts/heart-demo.R $(DEMO_DIR) --readme | tee $(DEMO_DIR)/heart-demo.txt

# The C++ core alone, without R: tests/cpp/test_core.cpp includes the check file of each header (one
# program), compiled against the Eigen headers that RcppEigen ships; tools/check-core-tests.sh first
# checks that every header has its test file (tests/cpp/headers.txt maps those tested by another). Every test has its own seed: they
# run in order, then last first (./tests/cpp/test_core NAME runs one alone; --list names them).
test-core: deps-demo
	@bash tools/check-core-tests.sh
	@eigen=$$($(RSCRIPT) -e 'cat(system.file("include", package = "RcppEigen"))'); \
	$${CXX:-g++} -std=c++17 -O1 -Wno-ignored-attributes -Wswitch -Werror=switch -Werror=switch-enum -I inst/include -isystem "$$eigen" \
	  tests/cpp/test_core.cpp -o tests/cpp/test_core && ./tests/cpp/test_core && ./tests/cpp/test_core --reverse

# A separate library (asan-lib/) holds the sanitizer build; the system's and yours are untouched.
check-asan: deps
	bash tools/check-asan.sh

# R CMD build knits each vignette once. R CMD check would run each vignette's R code ("checking running
# R code from vignettes") and then knit it again ("checking re-building of vignette outputs"), which
# runs the same code twice; _R_CHECK_VIGNETTES_SKIP_RUN_MAYBE_=true (what --as-cran sets) skips the
# first when the second follows, and makes an error in re-building an ERROR rather than a NOTE.
CHECK_ENV := _R_CHECK_FORCE_SUGGESTS_=false _R_CHECK_VIGNETTES_SKIP_RUN_MAYBE_=true

check: deps test-core
	rm -rf $(CHECKDIR) $(PKG)_*.tar.gz
	$(R_MAKE) $(R) CMD build $(BUILD_FLAGS) .
	@echo "$(R_MAKE) $(CHECK_ENV) $(R) CMD check $(CHECK_FLAGS) $(TARBALL)"; \
	status=0; \
	$(R_MAKE) $(CHECK_ENV) $(R) CMD check $(CHECK_FLAGS) $(TARBALL) || status=$$?; \
	log=$(CHECKDIR)/00check.log; \
	if [ ! -f "$$log" ]; then echo "make check: $$log not found" >&2; exit 1; fi; \
	line=$$(grep -E '^Status:' "$$log" | tail -n 1 || true); \
	echo "make check: $${line:-no Status line in $$log}"; \
	if [ -z "$$line" ] || echo "$$line" | grep -Eq 'ERROR|WARNING'; then exit 1; fi; \
	exit $$status

test: install
	$(RSCRIPT) -e 'testthat::test_local(".", load_package = "installed", stop_on_failure = TRUE)'

bench: deps install
	$(RSCRIPT) bench/bench-linear.R $(BENCH_N)

# The site is built from the installed package (install = FALSE: no second install into a temporary
# library); the articles are the vignettes, knitted again.
site: install
	$(RSCRIPT) -e 'options(pkgdown.internet = curl::has_internet()); pkgdown::build_site(preview = FALSE, install = FALSE, new_process = FALSE)'

site-check:
	$(RSCRIPT) tools/test-check-site.R
	$(RSCRIPT) tools/check-site.R docs site-check

clean:
	rm -rf $(CHECKDIR) $(PKG)_*.tar.gz src/*.o src/*.so src/*.dll install.log tests/cpp/test_core asan-lib docs site-check
