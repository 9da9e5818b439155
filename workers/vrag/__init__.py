"""V-RAG (Chu, Zhang, Malon, Min): retrieval-augmented entity probing of a draft report.

    run_vrag(VragInputs(index_dir, report, images), progress) -> VragResult
        top-k similar reference images (image memory), the disease entities of the report and
        of the retrieved reports (extractor role) mapped to their shortest terminal
        sub-phrase seen in the library, a yes/no probe per entity (generator, llm or built-in
        vote), a ``vrag`` Detection per disagreement, and a rewritten report.
    build_tasks(studies, neighbours, k=3)  the three fine-tuning task sets (finetune.py)

Plain Python, no Django; docs/images.md describes the method and its choices.

Nothing is re-exported here: import the modules (``from workers.vrag.run import ...``).
The package's modules import each other's and the image memory's, so an __init__ that
imported them would close an import circle (tests/workers/test_import_graph.py).
"""
