// Not part of the target: the tests name it in SOURCES to get an error.
