"""The input stage: config forms, tool readers and sample files, read into what the analysis
takes. Nothing here analyses or renders."""
