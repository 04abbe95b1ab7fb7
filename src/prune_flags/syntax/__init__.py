"""The `ast` vocabulary: values, expressions, statements, options, spellings, templates."""
