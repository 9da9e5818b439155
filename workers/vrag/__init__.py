"""V-RAG (Chu, Zhang, Malon, Min): retrieval-augmented entity probing of a draft report.

    run_vrag(ctx, progress) -> VragResult    the study context's report and images:
        top-k similar reference images (image memory), the disease entities of the report and
        of the retrieved reports (extractor role) mapped to their shortest terminal
        sub-phrase seen in the library, a yes/no probe per entity (generator, llm or built-in
        vote), a ``vrag`` Detection per disagreement, and a rewritten report.
    build_tasks(studies, neighbours, k=3)  the three fine-tuning task sets (finetune.py)

Plain Python, no Django; docs/images.md describes the method and its choices.

Nothing is re-exported here: import the modules (``from workers.vrag.run import ...``), so
that reading the registry loads no FAISS. The entities it probes are the image memory's
(``workers.imagememory.entities``); V-RAG imports no other method.
"""
