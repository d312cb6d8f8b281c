// The precompiled validator of options.schema.json, written into dist by the build (scripts/precompile-schema.mjs).
export declare const schemaKey: string;
export declare const options: import("@skillrig/core").SchemaValidatorOptions;
export declare const validate: (value: unknown) => boolean;
