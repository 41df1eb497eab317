# man/: the manual pages.  tests/suites/docs.bash renders each one with warnings on.
dist_man_MANS += man/egg-cc.1 man/egg.1 man/egg-pragma.7
