"""Local models: registry, MLX LLM/VLM backends, ColQwen, and the DSPy bridge."""
