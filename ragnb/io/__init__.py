"""Readers for every input, each ending in the one validator of its kind."""
from ragnb.io.corpus import read_corpus
from ragnb.io.inputs import as_run, as_test_set
from ragnb.io.runs import RunFile, read_run
from ragnb.io.strata import read_strata
from ragnb.io.testsets import read_test_set

__all__ = ["RunFile", "as_run", "as_test_set", "read_corpus", "read_run", "read_strata",
           "read_test_set"]
