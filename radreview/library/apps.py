from django.apps import AppConfig
from django.conf import settings

from radreview.jobs.stages import register
from workers.backends import registry


class LibraryConfig(AppConfig):
    name = "radreview.library"
    label = "library"

    def ready(self):
        # The model-roles probe of the "builtin" generator loads the built-in retrieval
        # generator over this site's image memory (loading nothing until a probe runs).
        def load_builtin_generator():
            from workers.rarrg.generator import load_builtin_generator as load  # noqa: PLC0415 - defer the image memory to the first probe

            return load(settings.INDEX_DIR, encoder=registry.image_encoder())

        registry.set_builtin_generator_loader(load_builtin_generator)
        from . import image_import_stage, rarrg_stage, text_stage, vrag_stage  # noqa: PLC0415 - stage modules import models: only once apps are loaded

        register(vrag_stage.VRAG,
                 rarrg_stage.RARRG,
                 text_stage.IMPORT_REFERENCE,
                 image_import_stage.IMPORT_REFERENCE_IMAGES,
                 image_import_stage.REBUILD_IMAGE_INDEX)
