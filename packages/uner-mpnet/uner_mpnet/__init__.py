"""uner's base-size teacher as a package: ``models/uner-mpnet-base`` (masked LM, 110M parameters, 220 MB) and
``labels/uner-mpnet-base`` beside this file, found by ``uner.paths`` through the ``uner_models`` entry point."""
