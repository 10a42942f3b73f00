# The documentation (issue #18): the README's recipe runs as written
# (about 20 s, records refosd for 4 s; needs an LTTng session daemon and
# gperftools), every man page is clean under man --warnings, and no
# document cites a file that is not in the repository.
corecap_e2e_test(docs_readme docs_readme.sh TIMEOUT 120 LABELS docs)
corecap_e2e_test(docs_man docs_man.sh TIMEOUT 60 LABELS docs)
corecap_e2e_test(docs_refs docs_refs.sh TIMEOUT 30 LABELS docs)
