from django.apps import AppConfig
from django.conf import settings

from radreview.jobs.stages import declare
from workers.backends import registry


class LibraryConfig(AppConfig):
    name = "radreview.library"
    label = "library"

    def ready(self):
        # The model-roles probe of the "builtin" generator loads the built-in retrieval
        # generator over this site's image memory (loading nothing until a probe runs).
        def load_builtin_generator():
            from workers.rarrg.generator import load_builtin_generator as load  # noqa: PLC0415 - defer the image memory to the first probe

            from . import index_store  # noqa: PLC0415 - the object store's client and the image memory, at the first probe

            index_store.pull(index_store.IMAGE_MEMORY)
            return load(settings.INDEX_DIR, encoder=registry.image_encoder())

        registry.set_builtin_generator_loader(load_builtin_generator)
        declare(vrag="radreview.library.vrag_stage:VRAG",
                rarrg="radreview.library.rarrg_stage:RARRG",
                import_reference="radreview.library.text_stage:IMPORT_REFERENCE",
                import_reference_images="radreview.library.image_import_stage:IMPORT_REFERENCE_IMAGES",
                rebuild_image_index="radreview.library.image_import_stage:REBUILD_IMAGE_INDEX")
