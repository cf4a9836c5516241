// Tests of ingest_photometry_dataset's step logic (being written).
