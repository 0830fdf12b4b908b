"""evidence_corpus/retail package."""
