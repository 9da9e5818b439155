"""RA-RRG (Park et al.): retrieval-augmented report generation from key phrases.

    select_phrases / retrieve_phrases                kNN key-phrase retrieval, threshold 0.4,
                                                     pooled over a study's views
    compose_report(phrases)                          the built-in composer (radiology order)
    run_rarrg(ctx, progress)                         draft + ``rarrg`` detections for a study
                                                     (its StudyContext: images, report)
    load_builtin_generator(index_dir)                the generator role's built-in default
    retriever.build_model / train / load_checkpoint  the trained DETR-style retriever (torch)

Plain Python, no Django (torch only for the trained retriever); docs/images.md.

Nothing is re-exported here: import the modules (``from workers.rarrg.run import ...``), so
that reading the registry loads no FAISS. The key phrases it retrieves are the image memory's
(``workers.imagememory.phrases``); RA-RRG imports no other method.
"""
