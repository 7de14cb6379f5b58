"""Users' files: read strictly (each problem names file, line and column) and written without endangering what is there."""
