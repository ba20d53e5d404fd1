//! `#[derive(Sanitize)]` for zswaptop's snapshot types: an impl of `crate::sanitize::Sanitize`
//! that calls `Sanitize::sanitize` on every field of the struct, or of every variant of the enum.
//!
//! There is no way to leave a field out: a field whose type has no `Sanitize` impl is a compile
//! error, so a string added to the model is made safe for a terminal without being listed
//! anywhere, and a new kind of value must say (with an impl) whether it holds text. The impl
//! names the trait as `crate::sanitize::Sanitize`: the derive is for types of the zswaptop crate
//! itself.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Data, DeriveInput, Fields, parse_macro_input, parse_quote};

#[proc_macro_derive(Sanitize)]
pub fn derive_sanitize(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    expand(parse_macro_input!(input as DeriveInput)).into()
}

fn expand(mut input: DeriveInput) -> TokenStream {
    let sanitize: syn::Path = parse_quote!(crate::sanitize::Sanitize);
    // A generic type sanitizes what it holds: each type parameter must be `Sanitize` too.
    for param in input.generics.type_params_mut() {
        param.bounds.push(parse_quote!(#sanitize));
    }
    let name = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let body = match &input.data {
        Data::Struct(s) => {
            let (pattern, calls) = visit(&s.fields, &sanitize);
            quote! {
                let Self #pattern = self;
                #(#calls)*
            }
        }
        Data::Enum(e) if e.variants.is_empty() => quote! { match *self {} },
        Data::Enum(e) => {
            let arms = e.variants.iter().map(|v| {
                let variant = &v.ident;
                let (pattern, calls) = visit(&v.fields, &sanitize);
                quote! { Self::#variant #pattern => { #(#calls)* } }
            });
            quote! {
                match self {
                    #(#arms)*
                }
            }
        }
        Data::Union(u) => {
            return syn::Error::new(
                u.union_token.span,
                "Sanitize cannot be derived for a union: which field holds the value is unknown",
            )
            .to_compile_error();
        }
    };
    quote! {
        #[automatically_derived]
        impl #impl_generics #sanitize for #name #ty_generics #where_clause {
            fn sanitize(&mut self) {
                #body
            }
        }
    }
}

/// A pattern that binds every field (by name, or `f0`, `f1`… for a tuple), and a call of
/// `sanitize` on each binding.
fn visit(fields: &Fields, sanitize: &syn::Path) -> (TokenStream, Vec<TokenStream>) {
    let bindings: Vec<_> = fields
        .iter()
        .enumerate()
        .map(|(i, f)| match &f.ident {
            Some(ident) => ident.clone(),
            None => format_ident!("f{i}"),
        })
        .collect();
    let calls = bindings
        .iter()
        .map(|b| quote! { #sanitize::sanitize(#b); })
        .collect();
    let pattern = match fields {
        Fields::Named(_) => quote! { { #(#bindings),* } },
        Fields::Unnamed(_) => quote! { ( #(#bindings),* ) },
        Fields::Unit => quote! {},
    };
    (pattern, calls)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(input: DeriveInput) -> String {
        expand(input).to_string()
    }

    fn tokens(t: TokenStream) -> String {
        t.to_string()
    }

    #[test]
    fn every_field_of_a_struct_is_visited() {
        let out = expanded(parse_quote! {
            struct Host { hostname: Option<String>, uptime: f64, r#type: String }
        });
        let want = quote! {
            #[automatically_derived]
            impl crate::sanitize::Sanitize for Host {
                fn sanitize(&mut self) {
                    let Self { hostname, uptime, r#type } = self;
                    crate::sanitize::Sanitize::sanitize(hostname);
                    crate::sanitize::Sanitize::sanitize(uptime);
                    crate::sanitize::Sanitize::sanitize(r#type);
                }
            }
        };
        assert_eq!(out, tokens(want));
    }

    #[test]
    fn tuple_and_unit_structs() {
        let out = expanded(parse_quote! { struct Pair(String, u64); });
        assert!(
            out.contains(&tokens(quote! { let Self (f0, f1) = self; })),
            "{out}"
        );
        assert!(out.contains(&tokens(quote! { crate::sanitize::Sanitize::sanitize(f1); })));
        let out = expanded(parse_quote! { struct Nothing; });
        assert!(out.contains(&tokens(quote! { let Self = self; })), "{out}");
    }

    #[test]
    fn every_field_of_every_variant_is_visited() {
        let out = expanded(parse_quote! {
            enum Reason { Absent { note: String }, NoZswap, Malformed(Option<usize>, String) }
        });
        let want = quote! {
            match self {
                Self::Absent { note } => { crate::sanitize::Sanitize::sanitize(note); }
                Self::NoZswap => {}
                Self::Malformed(f0, f1) => {
                    crate::sanitize::Sanitize::sanitize(f0);
                    crate::sanitize::Sanitize::sanitize(f1);
                }
            }
        };
        assert!(out.contains(&tokens(want)), "{out}");
        let out = expanded(parse_quote! { enum Never {} });
        assert!(out.contains(&tokens(quote! { match *self {} })), "{out}");
    }

    #[test]
    fn type_parameters_must_be_sanitize_too() {
        let out = expanded(parse_quote! {
            struct Map<'a, T: Clone, const N: usize> where T: Eq { slots: [Option<T>; N], name: &'a str }
        });
        let want = quote! {
            impl<'a, T: Clone + crate::sanitize::Sanitize, const N: usize> crate::sanitize::Sanitize
                for Map<'a, T, N> where T: Eq
        };
        assert!(out.contains(&tokens(want)), "{out}");
    }

    #[test]
    fn a_union_is_refused() {
        let out = expanded(parse_quote! { union U { a: u32, b: f32 } });
        assert!(out.contains("compile_error"), "{out}");
        assert!(out.contains("cannot be derived for a union"), "{out}");
    }
}
