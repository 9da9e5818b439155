"""RA-RRG (Park et al.): retrieval-augmented report generation from key phrases.

    extract_key_phrases(report, extractor, llm)     key phrases, comparisons removed
    select_phrases / retrieve_phrases                kNN key-phrase retrieval, threshold 0.4,
                                                     pooled over a study's views
    compose_report(phrases)                          the built-in composer (radiology order)
    run_rarrg(RarrgInputs(...), progress)            draft + ``rarrg`` detections for a study
    load_builtin_generator(index_dir)                the generator role's built-in default
    retriever.build_model / train / load_checkpoint  the trained DETR-style retriever (torch)

Plain Python, no Django (torch only for the trained retriever); docs/images.md.

Nothing is re-exported here: import the modules (``from workers.rarrg.run import ...``).
The package's modules import each other's and the image memory's, so an __init__ that
imported them would close an import circle (tests/workers/test_import_graph.py).
"""
