"""The manual library: extraction, OCR, chunking, embedding, page images and the store."""
