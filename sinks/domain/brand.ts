/** A nominal tag on a primitive, so ids, tokens and fingerprints cannot be mixed up silently. */
export type Brand<T, Name extends string> = T & { readonly __brand: Name };
