# tests/equivalence.mk: the black-box suites that hold egg-cc to nvcc's behaviour
# (a corpus of real command lines) and to clear failures on bad input.
SUITES += tests/suites/equivalence.bash tests/suites/bad_input.bash
EXTRA_DIST += tests/suites/nvcc_compare.bash
EXTRA_DIST += tests/data/equivalence
