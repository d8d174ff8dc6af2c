"""Finding the pages and regions that answer a question: text (hybrid) and visual search."""
