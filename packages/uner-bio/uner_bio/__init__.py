"""uner's biomedical models as a package: ``models/uner-bio`` (masked LM), ``models/uner-student-bio`` (student) and
``labels/uner-bio`` beside this file, found by ``uner.paths`` through the ``uner_models`` entry point."""
