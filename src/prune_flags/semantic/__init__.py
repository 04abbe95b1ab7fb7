"""Facts of the code with `ast`: the index of names, bindings, modules, classes, the repository."""
